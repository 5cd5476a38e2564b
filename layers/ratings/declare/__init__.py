"""One way to declare what the service accepts and what it answers. Standard library only: the
rulesets declare their own fields with it.

`kinds`: what a value may be (`Integer`, `Choice`, `Flag`, `Text`, `Timestamp`, `ListOf`,
`Object`, and `Json` for a schema given as it is) and the `Field`s of an object.
Each kind checks what a caller sent (`parse`: the value, or `InvalidInput` naming the field
the way the caller wrote it, ``players[1].stats.bad_moves``, and saying what is allowed) and
describes itself as JSON Schema (`schema`). A body is an `Object` of fields: the service checks
with it, and the OpenAPI document shows its schema.

`answers`: an answer is a NamedTuple whose annotations are read as fields of the same kinds
(`int` an `Integer`, `datetime` a `Timestamp`, another answer an object, `X | None` nullable,
`Annotated[str, ID]` the kind `ID`...), so one declaration writes the JSON (`json_of`) and is
the answer's schema in the document (`answer_schema`).
"""
