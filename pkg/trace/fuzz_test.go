package trace

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadChrome: whatever the bytes of a trace file, ReadChrome returns
// an error of one line, or events that WriteChrome writes again into a
// trace ReadChrome reads with as many events. Never a panic. `make test`
// runs the target.
func FuzzReadChrome(f *testing.F) {
	ev := mixed()
	Sort(ev)
	var buf bytes.Buffer
	if err := WriteChrome(&buf, ev); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	for _, s := range []string{
		`{"traceEvents":[{"name":"gemm","cat":"task","ph":"X","ts":1,"dur":2,"pid":0,"tid":0,"args":{"m":1,"n":0,"k":0}}]}`,
		`{"traceEvents":[{"name":"xfer","ph":"X","ts":-1,"dur":1e300,"pid":-3,"tid":7}]}`,
		`{"traceEvents":[{"ph":"C","name":"memory","ts":5,"args":{"bytes":"x"}}]}`,
		`{"traceEvents":null}`, `{"traceEvents":[null]}`, `[]`, `null`, ``, `{"traceEvents":[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ReadChrome(bytes.NewReader(b))
		if err != nil {
			if msg := err.Error(); msg == "" || strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error %q: want one line", msg)
			}
			return
		}
		var out bytes.Buffer
		if err := WriteChrome(&out, got); err != nil {
			t.Fatalf("the events read do not write: %v", err)
		}
		back, err := ReadChrome(&out)
		if err != nil || len(back) != len(got) {
			t.Fatalf("written again, %d events read back (error %v); want %d", len(back), err, len(got))
		}
	})
}
