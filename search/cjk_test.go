package search

import "testing"

// TestMaybeCJKCoversEveryCJKRune checks CJKBigrams' quick look at bytes
// against every code point: no CJK character may hide below it.
func TestMaybeCJKCoversEveryCJKRune(t *testing.T) {
	for r := rune(0); r <= 0x10FFFF; r++ {
		if IsCJK(r) && !maybeCJK(string(r)) {
			t.Fatalf("%U is CJK but maybeCJK misses it", r)
		}
	}
	if maybeCJK("plain ASCII, café, naïve – well") != true { // U+2013 starts with 0xE2
		t.Error("a dash from U+0800 on should take the full look")
	}
	if maybeCJK("plain ASCII, café") {
		t.Error("Latin text below U+0800 needs no full look")
	}
}
