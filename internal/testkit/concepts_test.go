package testkit

import "testing"

func TestLike(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"%", "", true},
		{"%go%", "golang", true},
		{"go%", "ago", false},
		{"%go", "ago", true},
		{"g_", "go", true},
		{"g_", "g", false},
		{`100\%%`, "100% coverage", true},
		{`100\%%`, "1000 coverage", false},
		{`a\_b`, "a_b", true},
		{`a\_b`, "axb", false},
		{"%é%", "café", true},
	}
	for _, tt := range tests {
		if got := Like(tt.pattern, tt.s); got != tt.want {
			t.Errorf("Like(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}
