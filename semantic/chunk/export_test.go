package chunk

// Split exposes split (Scheme.Cut with chosen sizes) to the fuzz test.
var Split = split
