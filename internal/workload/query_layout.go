package workload

// queryLayout places the query workload's documents: _id k is the k-th
// document inserted; documents belong to groups of groupSize, and the
// groups are interleaved in stripes of about stripeGroups groups, so
// consecutive inserts belong to different groups and a group's documents
// are spread over its stripe instead of lying together on disk. Stripes
// also give the cached key range its unit: a run over the first stripes
// reads only their part of the collection.
type queryLayout struct {
	records   int64 // groups × groupSize
	groupSize int64
	groups    int64
	stripes   int64
}

// newQueryLayout lays out at least minRecords documents (rounded up to
// whole groups) in stripes of stripeGroups groups or, for the last few
// groups, a little more: the groups are split into floor(groups /
// stripeGroups) stripes of near-equal size, so no stripe is a lone group.
func newQueryLayout(minRecords, groupSize, stripeGroups int64) queryLayout {
	groups := max(1, (minRecords+groupSize-1)/groupSize)
	return queryLayout{
		records: groups * groupSize, groupSize: groupSize, groups: groups,
		stripes: max(1, groups/stripeGroups),
	}
}

// stripeStart is the first group of stripe j (j may equal stripes, for the
// end of the last stripe).
func (l queryLayout) stripeStart(j int64) int64 { return j * l.groups / l.stripes }

// stripeOf returns the stripe that holds group g.
func (l queryLayout) stripeOf(g int64) int64 {
	j := g * l.stripes / l.groups
	for l.stripeStart(j) > g {
		j--
	}
	for l.stripeStart(j+1) <= g {
		j++
	}
	return j
}

// doc returns the group and the sequence number within the group of
// document k.
func (l queryLayout) doc(k int64) (group, seq int64) {
	j := l.stripeOf(k / l.groupSize) // stripes hold whole groups' documents
	first := l.stripeStart(j)
	n := l.stripeStart(j+1) - first
	o := k - first*l.groupSize
	return first + o%n, o / n
}

// id returns the _id of document seq of group g.
func (l queryLayout) id(g, seq int64) int64 {
	j := l.stripeOf(g)
	first := l.stripeStart(j)
	n := l.stripeStart(j+1) - first
	return first*l.groupSize + seq*n + g - first
}

// cachedGroups is the number of groups, from group 0, in the largest run
// of whole stripes whose documents take at most budget bytes; at least
// one stripe.
func (l queryLayout) cachedGroups(docSize, budget int64) int64 {
	j := int64(1)
	for j < l.stripes && l.stripeStart(j+1)*l.groupSize*docSize <= budget {
		j++
	}
	return l.stripeStart(j)
}
