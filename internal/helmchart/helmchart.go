// Package helmchart is the provider's only door to Helm (helm.sh/helm/v3):
// loading a chart, coalescing and validating values exactly as `helm
// install` does, rendering templates offline as `helm template` does, and
// merging values files as `helm -f a -f b` does. The GPU rules in
// internal/render stay free of Helm and call these few functions.
package helmchart

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

// Chart is a loaded chart, subcharts included.
type Chart struct {
	chart *chart.Chart
}

// Load reads a chart directory (with Chart.yaml) or a packaged .tgz with
// Helm's loader.
func Load(path string) (*Chart, error) {
	ch, err := loader.Load(path)
	if err != nil {
		return nil, err
	}
	return &Chart{chart: ch}, nil
}

// Name is the chart's name from Chart.yaml.
func (c *Chart) Name() string { return c.chart.Name() }

// RemoteSchemaRef returns the first $ref of the chart's values schemas
// (subcharts included) that points outside its document, or "": Helm would
// download it during validation, which the provider never lets happen.
func (c *Chart) RemoteSchemaRef() string { return remoteSchemaRef(c.chart) }

func remoteSchemaRef(ch *chart.Chart) string {
	var doc any
	if len(ch.Schema) > 0 && json.Unmarshal(ch.Schema, &doc) == nil {
		if ref := RemoteRef(doc); ref != "" {
			return ref
		}
	}
	for _, dep := range ch.Dependencies() {
		if ref := remoteSchemaRef(dep); ref != "" {
			return ref
		}
	}
	return ""
}

// RemoteRef returns the first $ref in a decoded JSON schema that is not
// local to the document ("#/..."), or "".
func RemoteRef(v any) string {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if s, ok := t[k].(string); ok && k == "$ref" && !strings.HasPrefix(s, "#") {
				return s
			}
			if ref := RemoteRef(t[k]); ref != "" {
				return ref
			}
		}
	case []any:
		for _, e := range t {
			if ref := RemoteRef(e); ref != "" {
				return ref
			}
		}
	}
	return ""
}

// Coalesce merges values over the chart's defaults as `helm install` does
// (a null removes a default).
func (c *Chart) Coalesce(values map[string]any) (map[string]any, error) {
	return chartutil.CoalesceValues(c.chart, values)
}

// ValidateSchema validates coalesced values against the chart's
// values.schema.json and its subcharts'; the error lists every violation.
func (c *Chart) ValidateSchema(coalesced map[string]any) error {
	return chartutil.ValidateAgainstSchema(c.chart, coalesced)
}

// ValuesInvalidError is a Render error caused by the values failing the
// chart's schema, as opposed to a template that does not render. Its text
// is Helm's, which lists every violation.
type ValuesInvalidError struct{ Err error }

func (e *ValuesInvalidError) Error() string { return e.Err.Error() }
func (e *ValuesInvalidError) Unwrap() error { return e.Err }

// Render renders every template with values for a first install of release
// into namespace, offline: no cluster is asked (lookup returns nothing).
// The result maps template paths to their output.
func (c *Chart) Render(values map[string]any, release, namespace string) (map[string]string, error) {
	options := chartutil.ReleaseOptions{Name: release, Namespace: namespace, Revision: 1, IsInstall: true}
	renderValues, err := chartutil.ToRenderValues(c.chart, values, options, nil)
	if err != nil {
		if strings.Contains(err.Error(), "values don't meet the specifications") {
			return nil, &ValuesInvalidError{Err: err}
		}
		return nil, err
	}
	return engine.Render(c.chart, renderValues)
}

// ValidateAgainstSchemaJSON validates values (without chart defaults)
// against one values.schema.json document. violations lists what the
// values break; compileErr says the schema itself is unusable.
func ValidateAgainstSchemaJSON(values map[string]any, schema []byte) (violations, compileErr error) {
	err := chartutil.ValidateAgainstSingleSchema(values, schema)
	if err == nil {
		return nil, nil
	}
	var schemaErr chartutil.JSONSchemaValidationError
	if errors.As(err, &schemaErr) {
		return err, nil
	}
	return nil, err
}

// MergeTables layers src under dst as Helm merges values files: dst wins,
// nested maps merge key by key. It mutates and returns dst.
func MergeTables(dst, src map[string]any) map[string]any {
	return chartutil.MergeTables(dst, src)
}
