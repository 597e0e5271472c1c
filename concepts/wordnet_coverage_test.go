package concepts

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"
)

var wordNetCoverage = flag.Bool("wordnet-coverage", false, "TestWordNetCoverage: count the labelled splits' names WordNet holds (counts only: it prints no name)")

// TestWordNetCoverage counts, for each labelled split, its names that are
// a lemma of the shipped WordNet sets and its pairs of one cluster (and
// hard negatives) that one set holds — how far the splits overlap
// WordNet. It prints counts only, so that a held-out split's names are
// not read.
//
//	go test ./concepts -run TestWordNetCoverage -v -wordnet-coverage [-wordnet-dir /usr/share/wordnet]
func TestWordNetCoverage(t *testing.T) {
	if !*wordNetCoverage {
		t.Skip("needs -wordnet-coverage")
	}
	files, err := filepath.Glob("testdata/duplicates/clusters_*.tsv")
	if err != nil {
		t.Fatal(err)
	}
	wn := wordNetData()
	all := map[string]bool{} // every noun lemma of WordNet, with -wordnet-dir
	if *wordNetDir != "" {
		for l := range readIndexLemmas(t, filepath.Join(*wordNetDir, "index.noun")) {
			all[analyseBase(l)] = true
		}
	}
	for _, f := range files {
		names, inWN, inAll, pairs, pairsWN, negs, negsWN := map[string]bool{}, 0, 0, 0, 0, 0, 0
		for _, line := range fileLines(t, f) {
			row := strings.Split(line, "\t")
			if len(row) < 3 || strings.HasPrefix(row[0], "#") {
				continue
			}
			infos := make([]nameInfo, len(row)-1)
			for i, n := range row[1:] {
				infos[i] = analyseName(n)
				if !names[n] {
					names[n] = true
					if len(wn.senses(&infos[i])) > 0 {
						inWN++
					}
					if all[infos[i].folded] {
						inAll++
					}
				}
			}
			for i := range infos {
				for k := i + 1; k < len(infos); k++ {
					found, _ := wordNetPair(&infos[i], &infos[k], map[string][]int32{})
					if row[0] == "neg" {
						negs++
						if found {
							negsWN++
						}
						continue
					}
					pairs++
					if found {
						pairsWN++
					}
				}
			}
		}
		t.Logf("%s: %d of %d names are nouns of WordNet, %d lemmas of the shipped sets; they join %d of %d cluster pairs and %d of %d hard negative pairs",
			filepath.Base(f), inAll, len(names), inWN, pairsWN, pairs, negsWN, negs)
	}
}

// readIndexLemmas are the lemmas of a WordNet index file.
func readIndexLemmas(t *testing.T, path string) map[string]bool {
	t.Helper()
	m := map[string]bool{}
	for _, line := range fileLines(t, path) {
		if line != "" && line[0] != ' ' {
			m[strings.ReplaceAll(strings.Fields(line)[0], "_", " ")] = true
		}
	}
	return m
}
