package benchdata

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

func TestHashes(t *testing.T) {
	d := Generate()
	sum := func(list []string) string {
		h := sha256.Sum256([]byte(strings.Join(list, "\n")))
		return hex.EncodeToString(h[:])
	}
	tests := []struct {
		name string
		list []string
		want string
	}{
		{"vocab", d.Vocab, VocabSHA256},
		{"labels[:10000]", d.Labels[:10000], Labels10kSHA256},
		{"labels", d.Labels, LabelsSHA256},
		{"queries", d.Queries, QueriesSHA256},
	}
	for _, tt := range tests {
		if got := sum(tt.list); got != tt.want {
			t.Errorf("sha256(%s) = %s, want %s", tt.name, got, tt.want)
		}
	}
	for i, want := range []string{"dbj wtcmbmtpb", "Nectdnig-aydiwuama", "pun pdn lzzyh-kahxd"} {
		if d.Labels[i] != want {
			t.Errorf("labels[%d] = %q, want %q", i, d.Labels[i], want)
		}
	}
	for i, want := range []string{"ggyjfrpyyx yyecnm", "ajwjoxqu Lkslwphk", "fbrojifecg yxg mopu"} {
		if d.Queries[i] != want {
			t.Errorf("queries[%d] = %q, want %q", i, d.Queries[i], want)
		}
	}
}

// TestLabelsExtendGenerate checks that Labels starts with Generate's labels
// and goes on drawing new ones.
func TestLabelsExtendGenerate(t *testing.T) {
	d := Generate()
	more := Labels(LabelCount + 1000)
	if !slices.Equal(more[:LabelCount], d.Labels) {
		t.Fatal("Labels(n)[:LabelCount] differs from Generate().Labels")
	}
	seen := map[string]bool{}
	for _, l := range more[LabelCount:] {
		seen[l] = true
	}
	if len(seen) < 990 {
		t.Errorf("the 1,000 labels after Generate's have %d distinct values", len(seen))
	}
}
