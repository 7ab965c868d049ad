package provenance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCPUModel(t *testing.T) {
	cases := []struct{ text, want string }{
		{"processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9R45\nflags\t: fpu\n", "AMD EPYC 9R45"},
		{"processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Platinum 8488C\n\nprocessor\t: 1\nmodel name\t: other\n", "Intel(R) Xeon(R) Platinum 8488C"},
		{"processor\t: 0\nBogoMIPS\t: 50.00\nModel\t: Raspberry Pi 4\n", "Raspberry Pi 4"},
	}
	for _, c := range cases {
		if got := cpuModel(strings.NewReader(c.text)); got != c.want {
			t.Errorf("cpuModel = %q, want %q", got, c.want)
		}
	}
}

func TestFileSHA256(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	// SHA-256("abc"), FIPS 180-2 appendix B.1.
	const want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	r := New([]string{"exageostat", "fit", "--data", p}, 2, 3)
	if err := r.AddInput("data", p); err != nil {
		t.Fatal(err)
	}
	if err := r.AddInput("locations", ""); err != nil {
		t.Fatal(err)
	}
	if len(r.Inputs) != 1 || r.Inputs[0].SHA256 != want || r.Inputs[0].Bytes != 3 || r.Inputs[0].Flag != "data" {
		t.Errorf("inputs %+v, want one with sha256 %s and 3 bytes", r.Inputs, want)
	}
	if r.Ranks != 2 || r.Workers != 3 || r.Command[1] != "fit" || r.Date == "" || r.Host == "" || r.CPU == "" {
		t.Errorf("run %+v", r)
	}
	if err := r.AddInput("data", filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing input gave no error")
	}
}

func TestBuildString(t *testing.T) {
	cases := []struct {
		b           Build
		long, short string
	}{
		{Build{Version: "devel", Commit: "0123456789abcdef0123", Modified: true, Time: "2026-11-23T23:45:08Z", GoVersion: "go1.22.2", Platform: "linux/amd64"},
			"devel (commit 0123456789ab, modified, 2026-11-23T23:45:08Z; go1.22.2 linux/amd64)", "devel 0123456789ab+"},
		{Build{Version: "v0.3.0", GoVersion: "go1.22.2", Platform: "linux/arm64"}, "v0.3.0 (commit unknown; go1.22.2 linux/arm64)", "v0.3.0 unknown"},
	}
	for _, c := range cases {
		if got := c.b.String(); got != c.long {
			t.Errorf("String = %q, want %q", got, c.long)
		}
		if got := c.b.Short(); got != c.short {
			t.Errorf("Short = %q, want %q", got, c.short)
		}
	}
}
