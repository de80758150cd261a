package catalog

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteList writes the catalog's tests, one a line: the name and what it
// varies.
func WriteList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, t := range Tests() {
		fmt.Fprintf(tw, "%s\t%s\n", t.Name, t.Description)
	}
	return tw.Flush()
}
