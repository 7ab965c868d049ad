package config

import (
	"fmt"
	"io"

	"github.com/BurntSushi/toml"
)

// ClusterFile is a cluster file as the commands write it (calibrate, plan
// --hostfile): the tile size nb the durations were measured at, the
// [network] table and the [[group]] tables. LoadCluster reads it back.
type ClusterFile struct {
	NB      int     `toml:"nb"`
	Network Network `toml:"network"`
	Groups  []Group `toml:"group"`
}

// Encode writes f as TOML (BurntSushi/toml's encoder) after the header
// lines, each as a "# " comment ("" an empty comment line), and an empty
// line.
func (f ClusterFile) Encode(w io.Writer, header ...string) error {
	for _, h := range header {
		if h == "" {
			h = "#"
		} else {
			h = "# " + h
		}
		if _, err := fmt.Fprintln(w, h); err != nil {
			return err
		}
	}
	if len(header) > 0 {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	return toml.NewEncoder(w).Encode(f)
}
