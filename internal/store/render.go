package store

import (
	"context"
	"fmt"

	"github.com/mongobench/mongobench/internal/template"
)

// RenderTemplate renders the report template md through st's read-only
// template view (its pipelines checked again as parsed); a store that
// cannot run aggregation pipelines, such as a JSON Lines file, is refused.
// The document comes back with the render's error when a block broke.
func RenderTemplate(ctx context.Context, st Store, md []byte, opts template.Options) ([]byte, error) {
	m, ok := st.(TemplateSource)
	if !ok {
		return nil, fmt.Errorf("tables: the results store %s cannot run aggregation pipelines", st.Where())
	}
	src, err := m.TemplateReader(ctx)
	if err != nil {
		return nil, err
	}
	return template.Render(ctx, md, src, opts)
}
