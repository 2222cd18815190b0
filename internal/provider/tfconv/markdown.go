package tfconv

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// MarkdownList renders allowed values for a MarkdownDescription, e.g.
// "`gke`, `aks`". Descriptions call it with the same function the validator
// uses, so docs and validation cannot drift apart.
func MarkdownList(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = "`" + v + "`"
	}
	return strings.Join(quoted, ", ")
}

// MarkdownFile is the description a Markdown file beside a schema holds
// (read with go:embed): its text without the newline that ends the file's
// last line, which the description never had. Long prose reads and is
// edited best as Markdown, not as Go string concatenations.
func MarkdownFile(file string) string {
	return strings.TrimRight(file, "\n")
}

// OneOf is an optional string attribute that takes one of allowed: its
// description is before, the allowed values and after, and its validator
// checks the same list, so the two cannot disagree. more validators follow
// the list's.
func OneOf(allowed []string, before, after string, more ...validator.String) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: before + MarkdownList(allowed) + after,
		Optional:            true,
		Validators:          append([]validator.String{stringvalidator.OneOf(allowed...)}, more...),
	}
}
