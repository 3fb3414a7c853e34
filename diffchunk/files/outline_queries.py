"""The tree-sitter queries of the outline, one per language.

Capture names: ``def.<type>`` a definition kept anywhere, ``top.<type>`` one
dropped when it is local to a function, ``name`` its name; ``recv`` (Go
receiver type), ``trait`` (Rust impl), ``decl`` (C/C++ declarator to search
for the function name), ``obj`` (Ruby singleton).  A grammar release that
renames a node invalidates only the patterns that use it (see
``outline._compile_query``).
"""

from __future__ import annotations

_JS_COMMON = """
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(method_definition name: (_) @name) @def.method
(variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @top.function
(variable_declarator name: (identifier) @name value: (class)) @def.class
(assignment_expression left: (member_expression) @name
  right: [(arrow_function) (function_expression)]) @top.function
"""

QUERIES: dict[str, str] = {
    "python": """
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name) @def.function
""",
    "javascript": _JS_COMMON
    + """
(class_declaration name: (identifier) @name) @def.class
(field_definition property: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @def.method
""",
    "typescript": _JS_COMMON
    + """
(class_declaration name: (type_identifier) @name) @def.class
(abstract_class_declaration name: (type_identifier) @name) @def.class
(interface_declaration name: (type_identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(type_alias_declaration name: (type_identifier) @name) @def.type
(internal_module name: (_) @name) @def.namespace
(module name: (_) @name) @def.module
(abstract_method_signature name: (_) @name) @def.method
(method_signature name: (_) @name) @def.method
(public_field_definition name: (_) @name
  value: [(arrow_function) (function_expression)]) @def.method
""",
    "go": """
(function_declaration name: (identifier) @name) @def.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @recv))
  name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name type: (struct_type)) @def.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name) @def.type
""",
    "rust": """
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(union_item name: (type_identifier) @name) @def.union
(trait_item name: (type_identifier) @name) @def.trait
(impl_item trait: (_)? @trait type: (_) @name) @def.impl
(mod_item name: (identifier) @name body: (declaration_list)) @def.module
(macro_definition name: (identifier) @name) @def.macro
(type_item name: (type_identifier) @name) @def.type
""",
    "java": """
(class_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(record_declaration name: (identifier) @name) @def.record
(annotation_type_declaration name: (identifier) @name) @def.interface
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.constructor
""",
    "c": """
(function_definition declarator: (_) @decl) @def.function
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @def.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @def.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @def.enum
(type_definition type: (struct_specifier !name body: (field_declaration_list))
  declarator: (type_identifier) @name) @def.struct
""",
    "cpp": """
(function_definition declarator: (_) @decl) @def.function
(class_specifier name: (_) @name body: (field_declaration_list)) @def.class
(struct_specifier name: (_) @name body: (field_declaration_list)) @def.struct
(union_specifier name: (_) @name body: (field_declaration_list)) @def.union
(enum_specifier name: (_) @name body: (enumerator_list)) @def.enum
(namespace_definition name: (_) @name) @def.namespace
(type_definition type: (struct_specifier !name body: (field_declaration_list))
  declarator: (type_identifier) @name) @def.struct
""",
    "csharp": """
(namespace_declaration name: (_) @name) @def.namespace
(file_scoped_namespace_declaration name: (_) @name) @def.namespace
(class_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(struct_declaration name: (identifier) @name) @def.struct
(enum_declaration name: (identifier) @name) @def.enum
(record_declaration name: (identifier) @name) @def.record
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.constructor
(destructor_declaration name: (identifier) @name) @def.method
(local_function_statement name: (identifier) @name) @def.function
""",
    "ruby": """
(class name: (_) @name) @def.class
(module name: (_) @name) @def.module
(method name: (_) @name) @def.function
(singleton_method object: (_) @obj name: (_) @name) @def.function
""",
    "php": """
(namespace_definition name: (_) @name) @def.namespace
(class_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(trait_declaration name: (name) @name) @def.trait
(enum_declaration name: (name) @name) @def.enum
(function_definition name: (name) @name) @def.function
(method_declaration name: (name) @name) @def.method
""",
    "markdown": """
(atx_heading) @def.heading
(setext_heading) @def.heading
""",
}
QUERIES["tsx"] = QUERIES["typescript"]
