package tfconv

// emptyIfNil keeps lists known and empty rather than null, so
// length(...) works in configurations.
func EmptyIfNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
