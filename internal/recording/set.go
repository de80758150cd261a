package recording

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// checksumFile is the file of checksums a server's 8.x recording
// directory holds.
const checksumFile = "checksum.txt"

// maxChecksumFile bounds checksum.txt: a line per rotated file.
const maxChecksumFile = 4 << 20

// Set reads a recording that is one file, or a directory of rotated
// .bin files (read in name order, as the server's replay does), as one
// stream of packets. A directory's checksum.txt, when there is one, is
// checked: a file it names whose CRC32C differs is an error once the
// file is read to its end.
type Set struct {
	fsys  fs.FS
	dir   string
	files []string
	sums  map[string]uint32
	next  int
	cur   *Reader
	f     fs.File
	start int64
	// Layouts are the layouts of the files read so far.
	layouts map[Layout]int
	shown   string // what errors call the recording
	isDir   bool
}

// pathErr is an fs error without its path, which the caller names.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// display is what errors call a file of the set.
func (s *Set) display(file string) string {
	if !s.isDir {
		return s.shown
	}
	return path.Join(s.shown, file)
}

// Open opens name in fsys: a recording file, or a directory holding .bin
// files. Errors call the files by their names in fsys.
func Open(fsys fs.FS, name string) (*Set, error) { return OpenAs(fsys, name, name) }

// OpenAs opens name in fsys and calls it shown in errors (the path the
// user gave): a file of a directory is shown/file.
func OpenAs(fsys fs.FS, name, shown string) (*Set, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, pathErr(err))
	}
	s := &Set{fsys: fsys, start: -1, layouts: map[Layout]int{}, shown: shown}
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file or a directory", shown)
		}
		s.dir, s.files = path.Dir(name), []string{path.Base(name)}
		return s, nil
	}
	s.dir, s.isDir = name, true
	entries, err := fs.ReadDir(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, pathErr(err))
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".bin") {
			s.files = append(s.files, e.Name())
		}
	}
	if len(s.files) == 0 {
		return nil, fmt.Errorf("%s: a recording directory holds .bin files; this one holds none", shown)
	}
	sort.Strings(s.files)
	if s.sums, err = readChecksums(fsys, path.Join(name, checksumFile), path.Join(shown, checksumFile)); err != nil {
		return nil, err
	}
	return s, nil
}

// Files are the files of the set, in the order they are read.
func (s *Set) Files() []string {
	out := make([]string, len(s.files))
	for i, f := range s.files {
		out[i] = path.Join(s.dir, f)
	}
	return out
}

// Checked says whether a checksum was found for file (a base name).
func (s *Set) Checked(file string) bool {
	_, ok := s.sums[file]
	return ok
}

// Layout is the layout of the file being read (LayoutUnknown before the
// first packet).
func (s *Set) Layout() Layout {
	if s.cur == nil {
		return LayoutUnknown
	}
	return s.cur.Layout()
}

// Next returns the next packet of the set, or io.EOF after the last
// file's last one.
func (s *Set) Next() (Packet, error) {
	for {
		if s.cur == nil {
			if s.next >= len(s.files) {
				return Packet{}, io.EOF
			}
			name := path.Join(s.dir, s.files[s.next])
			f, err := s.fsys.Open(name)
			if err != nil {
				return Packet{}, fmt.Errorf("%s: %w", s.display(s.files[s.next]), pathErr(err))
			}
			s.f = f
			s.cur = newReader(f, s.display(s.files[s.next]), &s.start)
		}
		p, err := s.cur.Next()
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, io.EOF) {
			return Packet{}, err
		}
		if err := s.finish(); err != nil {
			return Packet{}, err
		}
	}
}

// finish closes the current file and checks its checksum.
func (s *Set) finish() error {
	base := s.files[s.next]
	r := s.cur
	_ = s.f.Close()
	s.cur, s.f = nil, nil
	s.next++
	s.layouts[r.Layout()]++
	if want, ok := s.sums[base]; ok && want != r.Checksum() {
		return &Error{File: r.name, Offset: r.pos, Kind: ErrChecksum,
			Reason: fmt.Sprintf("CRC32C of the file's %d bytes is %x, %s says %x", r.pos, r.Checksum(), checksumFile, want)}
	}
	return nil
}

// Close closes the file being read.
func (s *Set) Close() error {
	if s.f != nil {
		return s.f.Close()
	}
	return nil
}

// readChecksums reads checksum.txt: per line a path, a tab and a
// hexadecimal CRC32C; the entries are keyed by the path's base name. A
// missing file is no checksums.
func readChecksums(fsys fs.FS, file, name string) (map[string]uint32, error) {
	f, err := fsys.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, pathErr(err))
	}
	defer func() { _ = f.Close() }()
	sums := map[string]uint32{}
	sc := bufio.NewScanner(io.LimitReader(f, maxChecksumFile+1))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	var read int64
	line := 0
	for sc.Scan() {
		line++
		read += int64(len(sc.Bytes())) + 1
		if read > maxChecksumFile {
			return nil, fmt.Errorf("%s: larger than %d bytes, not a checksum file", name, maxChecksumFile)
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		i := strings.LastIndexByte(text, '\t')
		if i < 0 {
			return nil, fmt.Errorf("%s:%d: want a path, a tab and a hexadecimal CRC32C, got %q", name, line, text)
		}
		v, err := strconv.ParseUint(strings.TrimSpace(text[i+1:]), 16, 32)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: checksum %q is not a 32-bit hexadecimal number", name, line, text[i+1:])
		}
		// A path is written as the server saw it (absolute, any OS).
		p := strings.ReplaceAll(text[:i], `\`, "/")
		sums[path.Base(p)] = uint32(v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return sums, nil
}
