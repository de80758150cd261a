package workload

import "testing"

func TestQueryLayoutPlacesEveryDocumentOnce(t *testing.T) {
	tests := []struct {
		records, groupSize, stripe int64
		wantRecords, wantStripes   int64
	}{
		{4800, 400, 4, 4800, 3},
		{4801, 400, 4, 5200, 3}, // 13 groups: stripes of 4, 4, 5
		{1000, 400, 256, 1200, 1},
		{24, 4, 2, 24, 3},
		{7, 4, 2, 8, 1},
	}
	for _, tt := range tests {
		l := newQueryLayout(tt.records, tt.groupSize, tt.stripe)
		if l.records != tt.wantRecords || l.stripes != tt.wantStripes {
			t.Errorf("newQueryLayout(%d, %d, %d): got %d records in %d stripes, want %d in %d",
				tt.records, tt.groupSize, tt.stripe, l.records, l.stripes, tt.wantRecords, tt.wantStripes)
		}
		seen := map[[2]int64]bool{}
		for k := range l.records {
			g, seq := l.doc(k)
			if g < 0 || g >= l.groups || seq < 0 || seq >= l.groupSize || seen[[2]int64{g, seq}] {
				t.Fatalf("%+v: document %d is group %d seq %d (out of range or taken)", l, k, g, seq)
			}
			seen[[2]int64{g, seq}] = true
			if got := l.id(g, seq); got != k {
				t.Fatalf("%+v: id(%d, %d) = %d, want %d", l, g, seq, got, k)
			}
			if k > 0 && l.groups > 1 {
				if prev, _ := l.doc(k - 1); prev == g {
					t.Errorf("%+v: documents %d and %d are both in group %d", l, k-1, k, g)
				}
			}
		}
	}
}

func TestQueryLayoutCachedGroups(t *testing.T) {
	l := newQueryLayout(10*400, 400, 2) // 5 stripes of 2 groups, 800 KB each at 1 KB
	tests := []struct {
		budget, want int64
	}{
		{100 << 10, 2},  // less than one stripe: still one
		{800 << 10, 2},  // exactly one
		{2500 << 10, 6}, // three
		{1 << 30, 10},   // everything
	}
	for _, tt := range tests {
		if got := l.cachedGroups(1024, tt.budget); got != tt.want {
			t.Errorf("cachedGroups(1KB, %d): got %d groups, want %d", tt.budget, got, tt.want)
		}
	}
}
