package study

import (
	"fmt"
	"io"

	"github.com/mongobench/mongobench/internal/result"
)

// WriteJourneyOf writes the journey of the SLA runs among docs, read from
// the store where names (Journey, WriteJourney), or says that it holds
// none.
func WriteJourneyOf(w io.Writer, markdown bool, docs []result.Doc, s SLA, where string) error {
	runs, err := RunsOf(docs)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		_, err := fmt.Fprintf(w, "no SLA runs stored in %s\n", where)
		return err
	}
	format := Text
	if markdown {
		format = Markdown
	}
	return WriteJourney(w, format, Journey(runs, s))
}
