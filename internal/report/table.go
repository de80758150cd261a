package report

import "github.com/mongobench/mongobench/internal/texttable"

// table is the shared text and Markdown table writer.
type table = texttable.Table

func newTable(cols ...string) *table { return texttable.New(cols...) }
