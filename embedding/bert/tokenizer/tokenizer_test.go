package tokenizer

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestBasics(t *testing.T) {
	tk := loadMiniLM(t)
	if got := tk.Tokens("Héllo, WORLD! unaffable"); !slices.Equal(got, []string{"hello", ",", "world", "!", "una", "##ffa", "##ble"}) {
		t.Errorf("tokens %q", got)
	}
	if got := tk.Encode(""); !slices.Equal(got, []int32{101, 102}) {
		t.Errorf("empty: %v", got)
	}
	for _, n := range []int{2, 3, 5} {
		if got := tk.EncodeMax("one two three four five six", n); len(got) != n || got[0] != 101 || got[n-1] != 102 {
			t.Errorf("EncodeMax(%d) = %v", n, got)
		}
	}
	// A section that normalises to an added token is that token when the
	// normaliser keeps case (transformers.js does the same).
	tk.lowercase, tk.stripAccents = false, false
	if got := tk.Encode("[C\u200bLS]"); !slices.Equal(got, []int32{101, 101, 102}) {
		t.Errorf("cased [C ZWSP LS]: %v", got)
	}
}

func TestConcurrent(t *testing.T) {
	tk := loadMiniLM(t)
	text := strings.Repeat("ΟΔΥΣΣΕΥΣ Σίσυφος naïve 東京 ", 20)
	want := tk.Encode(text)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if got := tk.Encode(text); !slices.Equal(got, want) {
					t.Error("concurrent Encode differs")
					return
				}
			}
		}()
	}
	wg.Wait()
}
