package testkit_test

import (
	"testing"

	"github.com/noema-mem/noema/embedding/embeddingtest"
	"github.com/noema-mem/noema/internal/testkit"
)

func TestWordsConformance(t *testing.T) { embeddingtest.Run(t, testkit.Words{}) }
