package infer

import (
	"fmt"
	"math"
	"slices"
)

// A Profile is what a set of documents holds, to compare two sets (a
// source collection and the one seeded from its inferred file): their
// BSON sizes and, per path, how often it is there and with which types.
type Profile struct {
	Docs     int
	P50, P95 int // BSON sizes in bytes
	// Paths are the documents' paths: "a", "a.b", "list[]" (an array's
	// items), "list[].b".
	Paths map[string]PathProfile
}

// PathProfile is one path of a Profile.
type PathProfile struct {
	// Present is the share of the documents (sub-documents, array items)
	// that could hold the path and do, null included.
	Present float64
	// Types is each BSON type's share of the path's values ("int",
	// "string", "null", … as $type names them).
	Types map[string]float64
}

// ProfileOf profiles documents.
func ProfileOf(docs [][]byte) Profile {
	p := Profile{Docs: len(docs), Paths: map[string]PathProfile{}}
	p.P50, p.P95 = SizePercentiles(docs)
	p.object("", docOf(raws(docs)))
	return p
}

func (p Profile) object(prefix string, o *object) {
	for _, k := range o.order {
		p.values(prefix+k, o.fields[k], o.docs)
	}
}

func (p Profile) values(path string, v *values, parents int) {
	pp := PathProfile{Present: float64(v.n) / float64(parents), Types: map[string]float64{}}
	for t, x := range v.types {
		pp.Types[typeName(t)] = float64(x.count) / float64(v.n)
		if x.fields != nil {
			p.object(path+".", x.fields)
		}
		if x.items != nil && x.items.n > 0 {
			p.values(path+"[]", x.items, x.items.n)
		}
	}
	if v.nulls > 0 {
		pp.Types["null"] = float64(v.nulls) / float64(v.n)
	}
	p.Paths[path] = pp
}

// Differences lists where q departs from p: a path one has and the
// other lacks, a presence or type share more than shareTol apart
// (absolute), a p50 or p95 size more than sizeTol apart (relative).
func (p Profile) Differences(q Profile, shareTol, sizeTol float64) []string {
	var out []string
	size := func(name string, a, b int) {
		if math.Abs(float64(b-a)) > sizeTol*float64(a) {
			out = append(out, fmt.Sprintf("%s size %d bytes, want %d within %.0f%%", name, b, a, 100*sizeTol))
		}
	}
	size("p50", p.P50, q.P50)
	size("p95", p.P95, q.P95)
	var paths []string
	for k := range p.Paths {
		paths = append(paths, k)
	}
	for k := range q.Paths {
		if _, ok := p.Paths[k]; !ok {
			paths = append(paths, k)
		}
	}
	slices.Sort(paths)
	for _, k := range paths {
		a, inP := p.Paths[k]
		b, inQ := q.Paths[k]
		switch {
		case !inQ:
			out = append(out, fmt.Sprintf("%s: missing", k))
			continue
		case !inP:
			out = append(out, fmt.Sprintf("%s: not in the source", k))
			continue
		}
		if math.Abs(a.Present-b.Present) > shareTol {
			out = append(out, fmt.Sprintf("%s: present in %.3f, want %.3f ± %.2f", k, b.Present, a.Present, shareTol))
		}
		for t, s := range a.Types {
			if math.Abs(s-b.Types[t]) > shareTol {
				out = append(out, fmt.Sprintf("%s: type %s %.3f of its values, want %.3f ± %.2f", k, t, b.Types[t], s, shareTol))
			}
		}
		for t, s := range b.Types {
			if _, ok := a.Types[t]; !ok && s > shareTol {
				out = append(out, fmt.Sprintf("%s: type %s %.3f of its values, not in the source", k, t, s))
			}
		}
	}
	return out
}
