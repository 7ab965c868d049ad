package trace

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// pajeDef is one %EventDef of a Paje header: the event and its fields.
type pajeDef struct {
	event  string
	fields map[string]int // field name -> position in a line
}

// pajeLine is one event line with its definition.
type pajeLine struct {
	def *pajeDef
	tok []string
}

func (l pajeLine) str(f string) string {
	if i, ok := l.def.fields[f]; ok && i < len(l.tok) && l.tok[i] != emptyField {
		return l.tok[i]
	}
	return ""
}

func (l pajeLine) num(f string) float64 {
	v, err := strconv.ParseFloat(l.str(f), 64)
	if err != nil {
		return 0
	}
	return v
}

func (l pajeLine) ns(f string) int64 { return int64(math.Round(l.num(f) * 1e9)) }

// ReadPaje reads a Paje trace written by WritePaje or a Stream (a run's
// rank, complete or cut short by a kill) back into its events, sorted by
// Sort: the tasks whose end is in the file, the messages (a merged trace's
// links are derived and skipped) and the memory samples. A last line
// without its newline (a file being written) is left out.
func ReadPaje(r io.Reader) ([]Event, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	defs := map[string]*pajeDef{}
	var cur *pajeDef
	st := newPajeState()
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			break // a partial last line, if any, is left out
		}
		if err != nil {
			return nil, fmt.Errorf("trace: %w", err)
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "%"):
			if cur, err = headerLine(defs, cur, line); err != nil {
				return nil, fmt.Errorf("trace: line %d: %v", n, err)
			}
		default:
			tok, err := fields(line)
			if err != nil || len(tok) == 0 {
				return nil, fmt.Errorf("trace: line %d: %v", n, err)
			}
			d := defs[tok[0]]
			if d == nil {
				return nil, fmt.Errorf("trace: line %d: event %q has no definition", n, tok[0])
			}
			if err := st.event(pajeLine{def: d, tok: tok}); err != nil {
				return nil, fmt.Errorf("trace: line %d: %v", n, err)
			}
		}
	}
	if len(defs) == 0 {
		return nil, fmt.Errorf("trace: not a Paje trace (no %%EventDef)")
	}
	Sort(st.ev)
	return st.ev, nil
}

// headerLine reads one line of the header into defs; cur is the
// definition being read.
func headerLine(defs map[string]*pajeDef, cur *pajeDef, line string) (*pajeDef, error) {
	f := strings.Fields(strings.TrimPrefix(line, "%"))
	switch {
	case len(f) == 0:
		return cur, nil
	case f[0] == "EventDef" && len(f) == 3:
		d := &pajeDef{event: f[1], fields: map[string]int{}}
		defs[f[2]] = d
		return d, nil
	case f[0] == "EndEventDef":
		return nil, nil
	case cur != nil:
		cur.fields[f[0]] = len(cur.fields) + 1
		return cur, nil
	}
	return nil, fmt.Errorf("header line %q outside an event definition", line)
}

// fields splits a Paje line into fields, "quoted" ones whole.
func fields(line string) ([]string, error) {
	var out []string
	for line = strings.TrimLeft(line, " \t"); line != ""; line = strings.TrimLeft(line, " \t") {
		if line[0] == '"' {
			s, err := strconv.QuotedPrefix(line)
			if err != nil {
				return nil, fmt.Errorf("unterminated quote in %q", line)
			}
			u, _ := strconv.Unquote(s)
			out = append(out, u)
			line = line[len(s):]
			continue
		}
		i := strings.IndexAny(line, " \t")
		if i < 0 {
			i = len(line)
		}
		out = append(out, line[:i])
		line = line[i:]
	}
	return out, nil
}

// pajeState rebuilds events from a Paje trace's lines: per worker
// container, the task it runs and the start of a runtime wait.
type pajeState struct {
	ev   []Event
	task map[string]*Event // open task per container
	wait map[string]int64  // start of the runtime wait per container
}

func newPajeState() *pajeState {
	return &pajeState{task: map[string]*Event{}, wait: map[string]int64{}}
}

// event applies one event line.
func (s *pajeState) event(l pajeLine) error {
	t := l.ns("Time")
	switch l.def.event {
	case "PajeSetState":
		return s.state(l, t)
	case "PajeSetVariable":
		var q int
		if _, err := fmt.Sscanf(l.str("Container"), "r%d", &q); err != nil {
			return fmt.Errorf("variable of container %q", l.str("Container"))
		}
		s.ev = append(s.ev, Event{Kind: MemoryKind, Tile: [3]int{-1, -1, -1}, Rank: q, Worker: -1, Start: t, End: t,
			Bytes: int64(l.num("Value"))})
	case "PajeNewEvent":
		var q int
		if _, err := fmt.Sscanf(l.str("Container"), "r%dc", &q); err != nil {
			return fmt.Errorf("transfer on container %q", l.str("Container"))
		}
		s.ev = append(s.ev, Event{Kind: l.str("Value"), Tile: [3]int{-1, -1, -1}, Rank: q, Worker: -1,
			Start: l.ns("Posted"), End: t, Src: int(l.num("Src")), Dst: int(l.num("Dst")), Tag: int(l.num("Tag")),
			Handle: l.str("Handle"), Bytes: int64(l.num("Bytes")), Iter: int(l.num("Iteration")),
			Submit: l.ns("Submit"), Ready: l.ns("Ready")})
	}
	return nil
}

// state applies a worker's state change at t: it ends the task running
// there, and starts a wait, a task or idleness.
func (s *pajeState) state(l pajeLine, t int64) error {
	c := l.str("Container")
	if e := s.task[c]; e != nil {
		e.End = t
		s.ev = append(s.ev, *e)
		delete(s.task, c)
	}
	v := l.str("Value")
	switch v {
	case stateIdle:
		delete(s.wait, c)
		return nil
	case stateRuntime:
		s.wait[c] = t
		return nil
	}
	e := &Event{Kind: v, Start: t, Flops: l.num("Flops"), Iter: int(l.num("Iteration")), Priority: int(l.num("Priority")),
		Submit: l.ns("Submit"), Ready: l.ns("Ready"), CPU: l.ns("CPU"), Resource: l.str("Resource"),
		Handle: l.str("Handle"), Bytes: int64(l.num("Bytes"))}
	if _, err := fmt.Sscanf(c, "r%dw%d", &e.Rank, &e.Worker); err != nil {
		return fmt.Errorf("state of container %q", c)
	}
	if _, err := fmt.Sscanf(l.str("Tile"), "%d,%d,%d", &e.Tile[0], &e.Tile[1], &e.Tile[2]); err != nil {
		e.Tile = [3]int{-1, -1, -1}
	}
	if w, ok := s.wait[c]; ok {
		e.Start, e.Exec = w, t
		delete(s.wait, c)
	}
	s.task[c] = e
	return nil
}
