package importer_test

import "testing"

// FuzzParsers feeds each input to the three parsers of an import —
// memory-jsonl, basic-memory and mem0 — and checks each as its own check
// says (checkMemoryJSONL, checkBasicMemory, checkMem0): one target, so
// that .ci/fuzz, which runs every target for a minute, spends one minute
// on them, while coverage guides the inputs towards all three.
func FuzzParsers(f *testing.F) {
	memoryJSONLSeeds(f)
	basicMemorySeeds(f)
	mem0Seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkMemoryJSONL(t, data)
		checkBasicMemory(t, data)
		checkMem0(t, data)
	})
}
