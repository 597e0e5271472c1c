package chunk

// Split exposes split (Body with chosen sizes) to the fuzz test.
var Split = split
