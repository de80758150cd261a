package bounded

import "os"

// OpenAtMost opens the regular file at path (Open) to be read as a
// stream, and refuses it from its size, before reading a byte, when it
// is larger than l.Max. A file that grows past l.Max while it is read is
// the reader's to bound (Reader).
func OpenAtMost(path string, l Limit) (*os.File, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && st.Size() > l.Max {
		err = tooLarge(path, l)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}
