package tfconv

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// oneOfSuggesting is stringvalidator.OneOf with a hint: a value that is not
// allowed gets the framework's own words plus the allowed value the user
// most likely meant ("gcp": did you mean "gke"?).
type oneOfSuggesting struct {
	allowed []string
	suggest func(got string, allowed []string) string
}

// OneOfSuggesting accepts one of allowed; a value that is not gets, after
// the list, suggest's pick when it has one.
func OneOfSuggesting(allowed []string, suggest func(got string, allowed []string) string) validator.String {
	return oneOfSuggesting{allowed: allowed, suggest: suggest}
}

func (v oneOfSuggesting) Description(context.Context) string {
	return fmt.Sprintf("value must be one of: %q", v.allowed)
}

func (v oneOfSuggesting) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v oneOfSuggesting) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	got := req.ConfigValue.ValueString()
	if slices.Contains(v.allowed, got) {
		return
	}
	detail := fmt.Sprintf("Attribute %s %s, got: %q.", req.Path, v.Description(ctx), got)
	if hint := v.suggest(got, v.allowed); hint != "" {
		detail += fmt.Sprintf(" Did you mean %q?", hint)
	}
	resp.Diagnostics.AddAttributeError(req.Path, "Invalid Attribute Value Match", detail)
}
