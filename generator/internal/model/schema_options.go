package model

// SchemaOptions are the //rpcgen:schema options of a method's schemas (its
// tool's input and output schemas and its schema files), from the method's
// directive or else its interface's.
type SchemaOptions struct {
	// Dialect names the dialect at the root: "$schema" is
	// https://json-schema.org/draft/2020-12/schema.
	Dialect bool
	// Defs puts every named struct type under "$defs", referred to by
	// "$ref", instead of inlining it.
	Defs bool
}

// readSchemaOptions applies the keys of a //rpcgen:schema directive (nil:
// none) to base.
func readSchemaOptions(d *Directive, base SchemaOptions) SchemaOptions {
	if v := d.flag("dialect"); v != nil {
		base.Dialect = *v
	}
	if v := d.flag("defs"); v != nil {
		base.Defs = *v
	}
	return base
}
