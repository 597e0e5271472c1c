package cjk

import "testing"

// TestMaybeCoversEveryCJKRune checks Bigrams' quick look at bytes
// against every code point: no CJK character may hide below it.
func TestMaybeCoversEveryCJKRune(t *testing.T) {
	for r := rune(0); r <= 0x10FFFF; r++ {
		if Is(r) && !maybe(string(r)) {
			t.Fatalf("%U is CJK but maybe misses it", r)
		}
	}
	if maybe("plain ASCII, café, naïve – well") != true { // U+2013 starts with 0xE2
		t.Error("a dash from U+0800 on should take the full look")
	}
	if maybe("plain ASCII, café") {
		t.Error("Latin text below U+0800 needs no full look")
	}
}
