package ftdc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Scan reads the metric chunks of FTDC files whose samples may fall in
// a window, in the order the files were written.
type Scan struct {
	// Files are the files to read, in order (Files lists a directory's).
	Files []string
	// From and To bound the window; a zero time leaves that side open
	// unless FromSet or ToSet says it is a bound.
	// A chunk is decoded when some of its samples may fall in the window;
	// the caller keeps the samples it wants.
	From, To       time.Time
	FromSet, ToSet bool
	// Progress, when set, is told after each document how many bytes of
	// the files to read have been read, and their total.
	Progress func(done, total int64)
}

// Info is what a scan saw besides the samples.
type Info struct {
	// Versions are the server versions the metadata documents name
	// (buildInfo.version, flat or under common), in order, each once;
	// files without metadata (an interim file) give those their samples'
	// serverStatus.version names (VersionsFromSamples is then true).
	Versions            []string
	VersionsFromSamples bool
	// Roles are the roles the samples' figures come from (Layout.Role,
	// refined by the metadata's getCmdLineOpts), in order, each once.
	Roles []string
	// Layouts says which layouts the samples have: "flat", "role-split"
	// (8.0's common, shard, router), each once.
	Layouts []string
	// Files and Chunks count what was read and decoded; Skipped counts
	// the files left unread because their samples all lie outside the
	// window (their names give their first sample's time).
	Files, Chunks, Skipped int
	// Torn says, for each file that ends inside its last document,
	// where it ends early (TornError); the documents before it are read.
	Torn []string

	metaRole       string
	sampleVersions []string
}

// sample notes what a decoded chunk says of its server.
func (i *Info) sample(c *Chunk) {
	l := c.Layout()
	role := l.Role
	if i.metaRole != "" && role != RoleRouter {
		role = i.metaRole
	}
	if role != "" && !slices.Contains(i.Roles, role) {
		i.Roles = append(i.Roles, role)
	}
	layout := "flat"
	if l.Split {
		layout = "role-split"
	}
	if !slices.Contains(i.Layouts, layout) {
		i.Layouts = append(i.Layouts, layout)
	}
	if v, ok := l.String(c.Reference, SectionServerStatus, "version"); ok && !slices.Contains(i.sampleVersions, v) {
		i.sampleVersions = append(i.sampleVersions, v)
	}
}

// settle takes the samples' versions when no metadata named one.
func (i *Info) settle() {
	if len(i.Versions) == 0 && len(i.sampleVersions) > 0 {
		i.Versions, i.VersionsFromSamples = i.sampleVersions, true
	}
}

// archiveTime is an archive file's first sample's time, from its name
// (metrics.2026-03-01T12-00-00Z-00000), or false.
func archiveTime(path string) (time.Time, bool) {
	n := strings.TrimPrefix(filepath.Base(path), "metrics.")
	if i := strings.LastIndexByte(n, '-'); i > 0 && strings.HasSuffix(n[:i], "Z") {
		n = n[:i]
	}
	t, err := time.Parse("2006-01-02T15-04-05Z", n)
	return t, err == nil
}

// Run reads the files and calls fn with each metric chunk that may hold
// samples of the window, and the document it came from. fn's error ends
// the scan.
func (s Scan) Run(fn func(*Chunk, Document) error) (Info, error) {
	var info Info
	files := s.window()
	info.Skipped = len(s.Files) - len(files)
	var total, done int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			total += st.Size()
		}
	}
	var pending *Document // the last chunk seen, decoded once the next one shows it may reach the window
	flush := func() error {
		if pending == nil {
			return nil
		}
		d := *pending
		pending = nil
		c, err := d.Chunk()
		if err != nil {
			return err
		}
		info.Chunks++
		info.sample(c)
		return fn(c, d)
	}
	for _, f := range files {
		r, err := Open(f)
		if err != nil {
			return info, err
		}
		info.Files++
		err = s.file(r, &info, &pending, flush, func(n int64) {
			if s.Progress != nil {
				s.Progress(done+n, total)
			}
		})
		done += r.Size()
		_ = r.Close() // read only
		if err != nil {
			return info, err
		}
	}
	err := flush()
	info.settle()
	return info, err
}

// file reads one file's documents.
func (s Scan) file(r *Reader, info *Info, pending **Document, flush func() error, progress func(int64)) error {
	for {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var torn *TornError
		if errors.As(err, &torn) {
			info.Torn = append(info.Torn, torn.Error())
			return nil
		}
		if err != nil {
			return err
		}
		progress(r.Offset())
		switch d.Kind {
		case KindMetadata:
			if v, ok := MetadataVersion(d.Doc); ok && !slices.Contains(info.Versions, v) {
				info.Versions = append(info.Versions, v)
			}
			if r, ok := MetadataRole(d.Doc); ok {
				info.metaRole = r
			}
		case KindMetricChunk:
			// A chunk's samples start at its _id and end before the
			// next chunk's: the pending chunk is wanted unless this one
			// starts at or before the window does.
			if *pending != nil && s.hasFrom() && !d.ID.After(s.From) {
				*pending = nil
			}
			if err := flush(); err != nil {
				return err
			}
			if s.hasTo() && d.ID.After(s.To) {
				continue
			}
			*pending = &d
		}
	}
}

// window keeps the files that may hold samples of the window: an
// archive whose successor starts at or before From ends before it, and
// one that starts after To begins after it.
func (s Scan) window() []string {
	var out []string
	for i, f := range s.Files {
		start, ok := archiveTime(f)
		if ok && s.hasTo() && start.After(s.To) {
			continue
		}
		if i+1 < len(s.Files) && s.hasFrom() {
			if next, ok := archiveTime(s.Files[i+1]); ok && !next.After(s.From) {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

// String describes a scan's files for messages.
func (i Info) String() string {
	return fmt.Sprintf("%d files read (%d skipped outside the window), %d chunks", i.Files, i.Skipped, i.Chunks)
}

func (s Scan) hasFrom() bool { return s.FromSet || !s.From.IsZero() }
func (s Scan) hasTo() bool   { return s.ToSet || !s.To.IsZero() }
