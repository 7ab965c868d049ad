package job

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/provenance"
)

// TestStreamFitData: a CSV read from a FIFO (it can be read once) and
// parsed on rank 0 of three reaches every rank as the one-process parse
// of the same text (dataset.ReadCSVFrom, here), with the covariate, the
// notes and the names, its columns without spare room; rank 0 records
// the SHA-256 and size of the text (computed here), the others nothing;
// the file cannot be read again. A malformed row is the same error on
// every rank, rank 0's a *dataset.InputError, every rank's the user's.
func TestStreamFitData(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,y,z,elev\n")
	for i := range 700 { // a few lines more than one read of the scanner
		fmt.Fprintf(&b, "%.17g,%.17g,%.17g,%d\n", float64(i)/7, float64(i*i%101)/3, float64(i%13)-6.5, i%5)
	}
	good := b.String()
	for _, tc := range []struct {
		name, content, err string
	}{
		{"good", good, ""},
		{"bad row", "x,y,z,elev\n0.1,0.2,0.3,1\n0.4,zz,0.6,2\n", `d.fifo:3: y: cannot parse "zz"`},
	} {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "d.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		go func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.WriteString(tc.content)
				f.Close()
			}
		}()
		cfg := config.Fit{Data: fifo, Mean: "elev", Kernel: "matern"}
		want, _ := dataset.ReadCSVFrom(fifo, strings.NewReader(tc.content), readOptions(cfg.Columns, cfg.Mean, false))
		got := make([]*dataset.Data, 3)
		recs := make([][]provenance.Input, 3)
		errs := ranksWithin(t, 20*time.Second, 3, func(w comm.Comm) error {
			in := NewInputs(w, nil, nil)
			c := cfg
			if w.Rank() > 0 {
				c.Data = filepath.Join(dir, "not-here.csv") // never opened
			}
			name, d, err := streamFitData(in, c)
			if err != nil {
				return err
			}
			if name != fifo {
				return errors.New("named " + name)
			}
			if _, _, err := in.Read("data", c.Data); err == nil {
				return errors.New("the streamed file was read again")
			}
			var r provenance.Run
			in.Record(&r)
			got[w.Rank()], recs[w.Rank()] = d, r.Inputs
			return nil
		})
		sum := sha256.Sum256([]byte(tc.content))
		rec := []provenance.Input{{Flag: "data", Path: fifo, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(tc.content))}}
		for r := range 3 {
			if tc.err != "" {
				var de *dataset.InputError
				if errs[r] == nil || !strings.Contains(errs[r].Error(), tc.err) || errs[r].Error() != errs[0].Error() || !IsInput(errs[r]) || (r == 0 && !errors.As(errs[r], &de)) {
					t.Errorf("%s, rank %d: error %v, want rank 0's (%v), with %q", tc.name, r, errs[r], errs[0], tc.err)
				}
				continue
			}
			if errs[r] != nil {
				t.Fatalf("%s, rank %d: %v", tc.name, r, errs[r])
			}
			if !reflect.DeepEqual(got[r], want) {
				t.Errorf("%s, rank %d: the data differ from the one-process parse", tc.name, r)
			}
			for k, p := range dataColumns(got[r]) {
				if cap(*p) != len(*p) {
					t.Errorf("%s, rank %d: column %d has room for %d values, holds %d", tc.name, r, k, cap(*p), len(*p))
				}
			}
			var wr []provenance.Input // rank 0 alone records
			if r == 0 {
				wr = rec
			}
			if !reflect.DeepEqual(recs[r], wr) {
				t.Errorf("%s, rank %d: record %+v, want %+v", tc.name, r, recs[r], wr)
			}
		}
	}
}
