package db

// KeepCounts installs the kept counts again, as a start does.
var KeepCounts = keepCounts
