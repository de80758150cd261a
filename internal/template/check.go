package template

// Check parses the template md, so that a broken block fails before any
// pipeline runs, with the template's name (opts.Name) in the error. With
// opts.KeepGoing, Render notes broken blocks and renders the rest, so
// Check fails only when no block parses: there is nothing to render.
func Check(md []byte, opts Options) error {
	blocks, err := Parse(md)
	if opts.KeepGoing && len(blocks) > 0 {
		return nil
	}
	return Named(err, opts.Name)
}
