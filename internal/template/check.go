package template

// Check parses the template md, so that a broken block fails before any
// pipeline runs, with the template's name (opts.Name) in the error; with
// opts.KeepGoing nothing fails here, as Render notes broken blocks.
func Check(md []byte, opts Options) error {
	if opts.KeepGoing {
		return nil
	}
	_, err := Parse(md)
	return Named(err, opts.Name)
}
