//! Errors that name their field path (`de_path`) and the enums selected by a `kind` field
//! (`tagged!`), whose JSON Schema is built from the same list (core/schema.rs): shared by
//! every pluggable family's scenario table, whichever layer the family lives in.

pub(crate) fn de_path<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T, String> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let outer = e.path().to_string();
        let outer = if outer == "." { String::new() } else { outer };
        let inner = e.inner().to_string();
        let (ipath, msg) = split_path(&inner);
        let full = match (outer.is_empty(), ipath.is_empty()) {
            (true, _) => ipath.to_string(),
            (false, true) => outer,
            (false, false) => format!("{outer}.{ipath}"),
        };
        format!("@{full}@ {msg}")
    })
}

/// Splits "@path@ message" into (path, message); plain messages have an empty path.
pub(crate) fn split_path(s: &str) -> (&str, &str) {
    if let Some(rest) = s.strip_prefix('@') {
        if let Some(i) = rest.find("@ ") {
            return (&rest[..i], &rest[i + 2..]);
        }
    }
    ("", s)
}

/// Deserialize for an enum selected by a `kind` field, one struct per variant, keeping
/// field paths in errors and listing the allowed kinds.
/// The JSON Schema it implements (docs/schema.md) is a `oneOf` of the variants' tables,
/// each with its `kind` added, made from the same list (crate::core::schema::tagged_schema).
macro_rules! tagged {
    ($enum:ident, $what:literal, { $($name:literal => $variant:ident($ty:ty)),+ $(,)? }) => {
        impl schemars::JsonSchema for $enum {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($enum).into()
            }
            fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let variants = vec![$(crate::core::schema::kind_variant::<$ty>(g, $name)),+];
                crate::core::schema::tagged_schema($what, variants)
            }
        }

        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error as _;
                let mut v = <serde_json::Value as serde::Deserialize>::deserialize(d)?;
                let allowed = [$($name),+].join(", ");
                let obj = v.as_object_mut().ok_or_else(|| D::Error::custom(format!("expected a table with a `kind` field ({allowed})")))?;
                let kind = match obj.remove("kind") {
                    Some(serde_json::Value::String(k)) => k,
                    Some(_) => return Err(D::Error::custom(format!("@kind@ must be a string, one of: {allowed}"))),
                    None => return Err(D::Error::custom(format!("missing field `kind` (the {}: one of {allowed})", $what))),
                };
                match kind.as_str() {
                    $($name => $crate::core::tagged::de_path(v).map($enum::$variant).map_err(D::Error::custom),)+
                    other => Err(D::Error::custom(format!("@kind@ unknown {} {other:?}; allowed: {allowed}", $what))),
                }
            }
        }
    };
}
pub(crate) use tagged;
