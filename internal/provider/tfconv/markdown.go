package tfconv

import "strings"

// markdownList renders allowed values for a MarkdownDescription, e.g.
// "`gke`, `aks`". Descriptions call it with the same function the validator
// uses, so docs and validation cannot drift apart.
func MarkdownList(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = "`" + v + "`"
	}
	return strings.Join(quoted, ", ")
}
