package runtime

// depState is the hazard record of one copy of a handle in a sequential
// flow of accesses: the last node that wrote it and the nodes that read it
// since. The runtime keeps one per handle for its local graph (N = *task);
// the graph recorder one per handle and rank (N = node index). Both infer
// their dependencies with access, so a recorded graph has exactly the
// edges a run has.
type depState[N comparable] struct {
	writer  N
	written bool
	readers []N
}

// access records that node n accesses the copy in mode m and appends to
// preds the nodes n must wait for, as a sequential execution implies:
//
//	read after write  (RaW): a reader waits for the last writer;
//	write after read  (WaR): a writer waits for every reader since the last write;
//	write after write (WaW): a writer waits for the last writer (when no
//	                         reader came between; otherwise through them).
func (s *depState[N]) access(n N, m Mode, preds []N) []N {
	if m&W != 0 {
		if len(s.readers) > 0 {
			preds = append(preds, s.readers...)
		} else if s.written {
			preds = append(preds, s.writer)
		}
		s.writer, s.written = n, true
		clear(s.readers)
		s.readers = s.readers[:0]
		return preds
	}
	if s.written {
		preds = append(preds, s.writer)
	}
	s.readers = append(s.readers, n)
	return preds
}
