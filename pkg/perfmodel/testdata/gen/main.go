// Command gen writes the performance-model files of this folder from the
// Grid'5000 Lille machines of seed 000 as modelled by
// configs/cluster-chetemi-chifflet-chifflot1.toml: one file per group
// (chetemi.json, chifflet.json, chifflot.json) holding its [group.cpu]
// table as arch "cpu" entries and its [group.gpu] table as arch "cuda"
// entries at nb = 960, one sample each (the tables are models, not
// measurements).
//
// Run from the repository root:
//
//	go run ./pkg/perfmodel/testdata/gen
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/perfmodel"
)

func main() {
	const src = "configs/cluster-chetemi-chifflet-chifflot1.toml"
	c, err := config.LoadCluster(src)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, g := range c.Groups {
		m := perfmodel.New()
		m.SetHost(fmt.Sprintf("%s (seed 000 model, %s, not measured)", g.Name, src))
		for arch, table := range map[string]config.Durations{perfmodel.CPU: g.CPU, perfmodel.CUDA: g.GPU} {
			kinds := make([]string, 0, len(table))
			for k := range table {
				kinds = append(kinds, k)
			}
			slices.Sort(kinds)
			for _, k := range kinds {
				e := perfmodel.Entry{Arch: arch, Kind: k, Size: perfmodel.Footprint(k, c.NB), NB: c.NB, Samples: 1, Mean: table[k]}
				if err := m.Add(e); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
			}
		}
		out := filepath.Join("pkg/perfmodel/testdata", g.Name+".json")
		if err := m.Save(out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("wrote", out)
	}
}
