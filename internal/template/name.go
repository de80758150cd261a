package template

// Named puts the template's name into each block error of err, a single
// one or those Parse joins, as Render does with Options.Name, and returns
// err.
func Named(err error, name string) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			_ = named(e, name) // names e in place; the joined error is returned
		}
		return err
	}
	return named(err, name)
}
