package schema

// DefaultLevels are the values of a content's default_level: a role, or
// "inherit" (take the parent's). NULL means members get no access by default.
var DefaultLevels = []string{"admin", "create", "review", "edit", "comment", "read", "inherit"}
