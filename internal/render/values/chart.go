package values

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/helmchart"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

// PathRoot is the first Path step of diagnostics that point inside a
// values map rather than at an input attribute: gpudiag.At("values", "mig",
// "strategy"). RemapDiagnostics turns them into input paths.
const PathRoot = "values"

// ValidateAgainstChart loads a chart (directory or .tgz) with Helm's
// loader, coalesces values with the chart's defaults exactly as `helm
// install` does, and validates the result against the chart's
// values.schema.json (and its subcharts') with Helm's own validation. Each
// violation is a diagnostic whose Path is PathRoot followed by the
// location inside the values. Nothing is fetched: a schema that references
// a remote schema is reported instead of downloaded.
func ValidateAgainstChart(chartPath string, values map[string]any) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	ch, ok := loadChart(chartPath, &diags)
	if !ok {
		return diags
	}
	if ref := ch.RemoteSchemaRef(); ref != "" {
		diags.AddError(nil, "Chart schema needs the network",
			"The chart's values.schema.json references "+strconv.Quote(ref)+", which would be downloaded during validation. "+
				"Allowed: a chart whose schema is self-contained.")
		return diags
	}
	plain, err := chartkit.PlainMap(values)
	if err != nil {
		diags.AddError(nil, "Values cannot be encoded", err.Error()+".")
		return diags
	}
	coalesced, err := ch.Coalesce(plain)
	if err != nil {
		diags.AddError(nil, "Values do not merge with the chart's", err.Error()+".")
		return diags
	}
	if err := ch.ValidateSchema(coalesced); err != nil {
		diags.Append(schemaDiagnostics(ch.Name(), err))
	}
	return diags
}

func loadChart(chartPath string, diags *gpudiag.Diagnostics) (*helmchart.Chart, bool) {
	ch, err := helmchart.Load(chartPath)
	if err != nil {
		diags.AddError(nil, "Cannot load chart",
			"Helm could not load the chart at "+strconv.Quote(chartPath)+": "+err.Error()+
				". Allowed: a chart directory (with Chart.yaml) or a packaged .tgz.")
		return nil, false
	}
	return ch, true
}

// schemaDiagnostics turns Helm's schema error text into one diagnostic per
// violated leaf. The text is jsonschema's tree: "- at '<pointer>': <what>",
// indented per level; parents ("anyOf failed") are left out when a more
// specific child follows.
func schemaDiagnostics(chartName string, err error) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	type violation struct {
		indent  int
		pointer string
		message string
	}
	var found []violation
	for _, line := range strings.Split(err.Error(), "\n") {
		indent := len(line) - len(strings.TrimLeft(line, " "))
		pointer, message, ok := parseSchemaLine(strings.TrimSpace(line))
		if ok {
			found = append(found, violation{indent, pointer, message})
		}
	}
	for i, v := range found {
		if i+1 < len(found) && found[i+1].indent > v.indent {
			continue
		}
		steps := pointerSteps(v.pointer)
		diags.AddError(append(gpudiag.At(PathRoot), steps...), "Values violate the chart's schema",
			"Chart "+strconv.Quote(chartName)+" rejects the value at "+chartkit.DisplayValuesPath(steps)+": "+v.message+
				". Allowed: a value of the type the chart's values.schema.json declares.")
	}
	if len(diags) == 0 {
		diags.AddError(nil, "Values violate the chart's schema", strings.TrimSpace(err.Error()))
	}
	return diags
}

// parseSchemaLine reads "- at '/a/b': got string, want integer".
func parseSchemaLine(line string) (pointer, message string, ok bool) {
	line = strings.TrimPrefix(line, "- ")
	if !strings.HasPrefix(line, "at '") {
		return "", "", false
	}
	rest := line[len("at '"):]
	end := -1
	for i := 0; i < len(rest); i++ {
		if rest[i] == '\\' {
			i++
			continue
		}
		if rest[i] == '\'' {
			end = i
			break
		}
	}
	if end < 0 || !strings.HasPrefix(rest[end+1:], ": ") {
		return "", "", false
	}
	quoted := strings.ReplaceAll(strings.ReplaceAll(rest[:end], `\'`, `'`), `"`, `\"`)
	unquoted, err := strconv.Unquote(`"` + quoted + `"`)
	if err != nil {
		return "", "", false
	}
	return unquoted, rest[end+3:], true
}

// pointerSteps splits a JSON pointer into values path steps: object keys as
// strings, array indexes as ints.
func pointerSteps(pointer string) []any {
	if pointer == "" || pointer == "/" {
		return nil
	}
	var steps []any
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if n, err := strconv.Atoi(tok); err == nil && n >= 0 && strconv.Itoa(n) == tok {
			steps = append(steps, n)
			continue
		}
		steps = append(steps, tok)
	}
	return steps
}

// ValidateAgainstSchemaJSON validates values (without chart
// defaults) against one values.schema.json document with Helm's
// single-schema validation (helmchart), for schemas that ship without
// their chart. Remote references are refused as in ValidateAgainstChart.
func ValidateAgainstSchemaJSON(schema []byte, values map[string]any) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	var doc any
	if err := json.Unmarshal(schema, &doc); err != nil {
		diags.AddError(nil, "Invalid schema", "The schema is not JSON: "+err.Error()+".")
		return diags
	}
	if ref := helmchart.RemoteRef(doc); ref != "" {
		diags.AddError(nil, "Schema needs the network",
			"The schema references "+strconv.Quote(ref)+". Allowed: a self-contained schema.")
		return diags
	}
	plain, err := chartkit.PlainMap(values)
	if err != nil {
		diags.AddError(nil, "Values cannot be encoded", err.Error()+".")
		return diags
	}
	violations, compileErr := helmchart.ValidateAgainstSchemaJSON(plain, schema)
	if compileErr != nil {
		diags.AddError(nil, "Invalid schema", "Helm could not compile the schema: "+compileErr.Error()+".")
		return diags
	}
	if violations != nil {
		diags.Append(schemaDiagnostics("values.schema.json", violations))
	}
	return diags
}
