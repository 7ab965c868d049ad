package perfmodel

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzRead: whatever the bytes of a performance-model file, Read returns
// an error of one line naming the file, or a model that writes back to a
// file Read accepts with the same entries (arch, kind, size, samples and
// mean; the standard deviation is kept as a sum of squares, so it may
// move by an ulp). Never a panic. `make test` runs the target.
func FuzzRead(f *testing.F) {
	m := New()
	m.SetHost("box")
	for i, x := range []float64{0.02, 0.021, 0.019} {
		m.Record(CPU, "gemm", 960*960, x)
		m.Record(CUDA, "potrf", 960*960, 1e-3*float64(i+1))
	}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	for _, s := range []string{
		`{"format":"exageostat-perfmodel/1","host":"h","entries":[{"arch":"cpu","kind":"gemm","size":4,"samples":1,"mean_s":0.5,"stddev_s":0}]}`,
		`{"format":"exageostat-perfmodel/1","entries":[{"arch":"cpu","kind":"gemm","size":4,"samples":0,"mean_s":-1,"stddev_s":0}]}`,
		`{"format":"exageostat-perfmodel/1","entries":[{"arch":"cpu","kind":"gemm","size":4,"samples":2,"mean_s":1,"stddev_s":1},{"arch":"cpu","kind":"gemm","size":4,"samples":2,"mean_s":1,"stddev_s":1}]}`,
		`{"format":"exageostat-perfmodel/2"}`, `{"format":"exageostat-perfmodel/1","extra":1}`, `{} {}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Read(bytes.NewReader(b), "pm.json")
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "pm.json") || strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error %q: want one line starting with the file", msg)
			}
			return
		}
		var out bytes.Buffer
		if err := m.Write(&out); err != nil {
			t.Fatalf("the model read does not write: %v", err)
		}
		back, err := Read(&out, "again.json")
		if err != nil {
			t.Fatalf("the model read writes a file Read refuses: %v\n%s", err, out.Bytes())
		}
		a, z := m.Entries(), back.Entries()
		if len(a) != len(z) {
			t.Fatalf("%d entries written, %d read back", len(a), len(z))
		}
		for i := range a {
			if a[i].Arch != z[i].Arch || a[i].Kind != z[i].Kind || a[i].Size != z[i].Size || a[i].Samples != z[i].Samples || a[i].Mean != z[i].Mean {
				t.Fatalf("entry %d: written %+v, read back %+v", i, a[i], z[i])
			}
		}
	})
}
