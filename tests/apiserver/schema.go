package main

import (
	"encoding/json"
	"fmt"
	"strings"

	openapi_v2 "github.com/googleapis/gnostic/OpenAPIv2"
	"gopkg.in/yaml.v2"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/util/proto"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	"sigs.k8s.io/structured-merge-diff/typed"
)

// crd is the part of a CustomResourceDefinition this program reads.
type crd struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		PreserveUnknownFields bool `json:"preserveUnknownFields"`
		Versions              []struct {
			Name   string `json:"name"`
			Schema struct {
				OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// server holds what one CRD version needs: the merge type and the validator.
type server struct {
	group, kind, apiVersion string
	// objectType parses objects of the kind for structured-merge-diff.
	objectType typed.ParseableType
	// validator is kube-openapi's validator for the version's schema.
	validator *validate.SchemaValidator
}

// newServer reads the CRD and builds the merge schema and the validator of `version`.
func newServer(raw json.RawMessage, version string) (*server, error) {
	var definition crd
	if err := json.Unmarshal(raw, &definition); err != nil {
		return nil, fmt.Errorf("the CRD: %v", err)
	}
	var v3 json.RawMessage
	for _, v := range definition.Spec.Versions {
		if v.Name == version {
			v3 = v.Schema.OpenAPIV3Schema
		}
	}
	if v3 == nil {
		return nil, fmt.Errorf("the CRD has no schema for version %q", version)
	}
	s := &server{
		group:      definition.Spec.Group,
		kind:       definition.Spec.Names.Kind,
		apiVersion: definition.Spec.Group + "/" + version,
	}

	// Validation reads the v3 schema as it is, as the API server does for custom resources.
	var openapi spec.Schema
	if err := json.Unmarshal(v3, &openapi); err != nil {
		return nil, fmt.Errorf("the schema of %s: %v", version, err)
	}
	s.validator = validate.NewSchemaValidator(&openapi, nil, "", strfmt.Default)

	// The merge schema: as the API server does for a CRD, the structural v3 schema is
	// published as an OpenAPI v2 definition and converted by kube-openapi's schemaconv,
	// which reads the x-kubernetes-list-type, -list-map-keys, -map-type and
	// -preserve-unknown-fields extensions.
	var tree map[string]interface{}
	if err := json.Unmarshal(v3, &tree); err != nil {
		return nil, err
	}
	root, _ := toV2(tree).(map[string]interface{})
	properties, _ := root["properties"].(map[string]interface{})
	if properties == nil {
		properties = map[string]interface{}{}
		root["properties"] = properties
	}
	// The API server puts its own types here; the stand-in's managed fields never hold
	// metadata (see stripped), so a granular map is enough for the merge.
	properties["apiVersion"] = map[string]interface{}{"type": "string"}
	properties["kind"] = map[string]interface{}{"type": "string"}
	properties["metadata"] = map[string]interface{}{"type": "object"}
	name := strings.Join(append(reverse(strings.Split(s.group, ".")), version, s.kind), ".")
	document, err := json.Marshal(map[string]interface{}{
		"swagger":     "2.0",
		"info":        map[string]interface{}{"title": "kondition-apiserver", "version": version},
		"paths":       map[string]interface{}{},
		"definitions": map[string]interface{}{name: root},
	})
	if err != nil {
		return nil, err
	}
	parsed, err := openapi_v2.ParseDocument(document)
	if err != nil {
		return nil, fmt.Errorf("the v2 document: %v", err)
	}
	models, err := proto.NewOpenAPIData(parsed)
	if err != nil {
		return nil, fmt.Errorf("the v2 models: %v", err)
	}
	smd, err := schemaconv.ToSchemaWithPreserveUnknownFields(models, definition.Spec.PreserveUnknownFields)
	if err != nil {
		return nil, fmt.Errorf("the merge schema: %v", err)
	}
	// Through YAML, as the API server's type converter does: the parser validates it.
	text, err := yaml.Marshal(smd)
	if err != nil {
		return nil, err
	}
	parser, err := typed.NewParser(typed.YAMLObject(text))
	if err != nil {
		return nil, fmt.Errorf("the merge schema: %v", err)
	}
	s.objectType = parser.Type(name)
	if !s.objectType.IsValid() {
		return nil, fmt.Errorf("the merge schema has no type %q", name)
	}
	return s, nil
}

// toV2 keeps what an OpenAPI v2 schema can say about structure: the API server drops the
// rest (nullable, oneOf, anyOf, not, defaults, value bounds) when it publishes a CRD in
// v2, and none of it matters to the merge.
func toV2(node interface{}) interface{} {
	fields, ok := node.(map[string]interface{})
	if !ok {
		return node
	}
	kept := map[string]interface{}{}
	for key, value := range fields {
		switch {
		case key == "type" || key == "format" || key == "required":
			kept[key] = value
		case key == "items":
			kept[key] = toV2(value)
		case key == "additionalProperties":
			if allowed, isBool := value.(bool); isBool {
				kept[key] = allowed
			} else {
				kept[key] = toV2(value)
			}
		case key == "properties":
			properties := map[string]interface{}{}
			given, _ := value.(map[string]interface{})
			for name, property := range given {
				properties[name] = toV2(property)
			}
			kept[key] = properties
		case strings.HasPrefix(key, "x-kubernetes-") && key != "x-kubernetes-validations":
			kept[key] = value
		}
	}
	return kept
}

func reverse(parts []string) []string {
	out := make([]string, 0, len(parts))
	for i := len(parts) - 1; i >= 0; i-- {
		out = append(out, parts[i])
	}
	return out
}
