package template

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/texttable"
)

// A Source runs an aggregation pipeline (a JSON array of stages, in
// MongoDB Extended JSON) on a collection and returns the output documents
// as plain Go values: nested map[string]any and []any, int64, float64,
// string, bool, time.Time, nil.
type Source interface {
	Aggregate(ctx context.Context, collection string, pipelineJSON []byte) ([]map[string]any, error)
}

// Options tune Render.
type Options struct {
	// Name names the template in error messages ("template" if empty).
	Name string
	// KeepGoing renders a one-line error note in place of a broken
	// block's table and goes on; Render then returns the document and all
	// problems joined.
	KeepGoing bool
	// Strict makes a column that no output document has an error, for
	// template authors checking their field names. Without it such a
	// column is a column of empty cells, named in a note under its table
	// (a field the results do not hold, such as the IOPS of a disk whose
	// IOPS nobody gave).
	Strict bool
}

// Render returns the template with each block's table written after it,
// between the block and an end marker. Tables rendered earlier are
// replaced. Without KeepGoing it stops at the first broken block.
func Render(ctx context.Context, md []byte, src Source, opts Options) ([]byte, error) {
	var out bytes.Buffer
	var errs []error
	pos := 0
	for _, s := range scan(md) {
		out.Write(md[pos:s.end])
		if s.end == len(md) && (len(md) == 0 || md[len(md)-1] != '\n') {
			out.WriteByte('\n')
		}
		pos = s.old
		table, err := renderSpan(ctx, s, src, opts)
		if err != nil {
			err = named(err, opts.Name)
			if !opts.KeepGoing {
				return nil, err
			}
			errs = append(errs, err)
			table = note(err)
		}
		writeTable(&out, table)
	}
	out.Write(md[pos:])
	return out.Bytes(), errors.Join(errs...)
}

// renderSpan runs a parsed block's pipeline and formats its table.
func renderSpan(ctx context.Context, s span, src Source, opts Options) (string, error) {
	if s.err != nil {
		return "", s.err
	}
	b := s.block
	rows, err := src.Aggregate(ctx, b.Collection, b.Pipeline)
	if err != nil {
		return "", &Error{Line: b.Line, Err: err}
	}
	if opts.Strict {
		if err := allPresent(b.Columns, rows); err != nil {
			return "", &Error{Line: b.Line, Err: err}
		}
	}
	return Table(b.Columns, b.Headers, rows) + emptyNote(b.Columns, b.Headers, rows), nil
}

// writeTable writes a rendered table and the end marker, set off by blank
// lines so that Markdown sees a table.
func writeTable(out *bytes.Buffer, table string) {
	out.WriteString("\n")
	out.WriteString(table)
	out.WriteString("\n" + endMarker + "\n")
}

// named puts the template's name into a block error.
func named(err error, name string) error {
	var e *Error
	if errors.As(err, &e) && e.Name == "" {
		e.Name = name
	}
	return err
}

// note is the one-line Markdown written in place of a broken table.
func note(err error) string {
	return "> **Table not rendered:** " + escapeCell(err.Error()) + "\n"
}

// Table formats rows as a Markdown table: a header row, a separator that
// right-aligns columns whose non-empty values are all numbers, and one row
// per document. A missing or null value is an empty cell, also when no
// row has the column at all.
func Table(columns, headers []string, rows []map[string]any) string {
	var sb strings.Builder
	writeRow(&sb, escapeAll(headers))
	writeRow(&sb, separators(columns, rows))
	for _, row := range rows {
		cells := make([]string, len(columns))
		for j, col := range columns {
			v, _ := Lookup(row, col)
			cells[j] = literal(FormatValue(v))
		}
		writeRow(&sb, cells)
	}
	return sb.String()
}

// absent returns the indexes of the columns that no row has (null
// counts as present); none when there are no rows.
func absent(columns []string, rows []map[string]any) []int {
	if len(rows) == 0 {
		return nil
	}
	var out []int
	for j, col := range columns {
		found := false
		for _, row := range rows {
			if _, ok := Lookup(row, col); ok {
				found = true
				break
			}
		}
		if !found {
			out = append(out, j)
		}
	}
	return out
}

// allPresent is Strict's check: each column is present in at least one
// row, unless there are no rows.
func allPresent(columns []string, rows []map[string]any) error {
	missing := absent(columns, rows)
	if missing == nil {
		return nil
	}
	names := make([]string, len(missing))
	for i, j := range missing {
		names[i] = fmt.Sprintf("%q", columns[j])
	}
	return fmt.Errorf("no output document has column %s (the pipeline's output fields are %s)", strings.Join(names, ", "), fieldNames(rows))
}

// emptyNote is the line under a table that names its columns no output
// document has, or "" when there are none.
func emptyNote(columns, headers []string, rows []map[string]any) string {
	missing := absent(columns, rows)
	if missing == nil {
		return ""
	}
	names := make([]string, len(missing))
	for i, j := range missing {
		names[i] = fmt.Sprintf("%q", columns[j])
		if headers[j] != columns[j] {
			names[i] += " (" + headers[j] + ")"
		}
	}
	what := "Empty column"
	if len(missing) > 1 {
		what += "s"
	}
	return "\n> " + escapeCell(fmt.Sprintf("**%s:** no output document has %s; the pipeline's output fields are %s.",
		what, strings.Join(names, ", "), fieldNames(rows))) + "\n"
}

// separators right-aligns the numeric columns.
func separators(columns []string, rows []map[string]any) []string {
	seps := make([]string, len(columns))
	for j, col := range columns {
		seps[j] = "---"
		if numericColumn(col, rows) {
			seps[j] = "---:"
		}
	}
	return seps
}

// numericColumn says whether a column has values and all are numbers.
func numericColumn(col string, rows []map[string]any) bool {
	found := false
	for _, row := range rows {
		v, _ := Lookup(row, col)
		if v == nil {
			continue
		}
		if _, ok := number(v); !ok {
			return false
		}
		found = true
	}
	return found
}

func writeRow(sb *strings.Builder, cells []string) {
	sb.WriteString("|")
	for _, c := range cells {
		if c == "---" || c == "---:" {
			sb.WriteString(c + "|")
			continue
		}
		sb.WriteString(" " + c + " |")
	}
	sb.WriteString("\n")
}

// fieldNames lists the top-level fields of the first output document.
func fieldNames(rows []map[string]any) string {
	names := make([]string, 0, len(rows[0]))
	for k := range rows[0] {
		names = append(names, fmt.Sprintf("%q", k))
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func escapeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = escapeCell(s)
	}
	return out
}

// escapeCell keeps a value inside its cell: no pipes, no line breaks.
func escapeCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r\n", " ")
	return strings.ReplaceAll(s, "\n", " ")
}

// literal writes a value from the results (a label, a test name) as
// literal Markdown text in its cell: texttable.Escape, the one rule of
// every report.
func literal(s string) string { return texttable.Escape(s) }
