package runner

import (
	"bufio"
	"fmt"
	"os"
	"strconv"

	"github.com/mongobench/mongobench/internal/engine"
)

// TraceHeader is the first line of a calibration trace file: one line
// per measured successful operation, tab-separated; times are Unix
// nanoseconds (arrived 0 when unknown), latency and service in
// nanoseconds; request -1 when the task does not number its requests.
// called is the engine's call of the task (the send lag's end), sent
// where the service time begins (the first request's write, when the
// task knows it, else the call).
const TraceHeader = "request\top\tintended\tcalled\tsent\tarrived\treturned\tlatency\tservice"

// writeTrace writes the run's trace to path once the run is over, off
// the measuring path; a last line "# overflow N" counts operations the
// trace had no room for.
func writeTrace(path string, ops []string, tr *engine.Trace) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--trace %s: %w", path, err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	_, _ = w.WriteString(TraceHeader + "\n") // errors surface at Flush
	var b []byte
	for _, r := range tr.Records() {
		b = strconv.AppendInt(b[:0], r.Request, 10)
		b = append(b, '\t')
		b = append(b, ops[r.Op]...)
		for _, v := range []int64{r.Intended, r.Called, r.Sent, r.Arrived, r.Returned, int64(r.Latency), int64(r.Service)} {
			b = append(b, '\t')
			b = strconv.AppendInt(b, v, 10)
		}
		b = append(b, '\n')
		_, _ = w.Write(b)
	}
	if n := tr.Overflow(); n > 0 {
		_, _ = fmt.Fprintf(w, "# overflow %d\n", n)
	}
	if err := w.Flush(); err != nil {
		_ = f.Close() // the write failed already
		return fmt.Errorf("--trace %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--trace %s: %w", path, err)
	}
	return nil
}
