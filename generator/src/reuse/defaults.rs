//! What a k8s-openapi type's `Default` writes for an absent required property: a subtree
//! whose schema defaults a property is reused only when k8s-openapi writes that default.

use serde_json::{Map, Value as Json};

use super::Catalog;
use super::catalog::{Leaf, PropertyType, Shape};

/// What the Rust type's `Default` writes: k8s-openapi's value for an absent required property.
pub fn default(catalog: &Catalog, ty: &PropertyType) -> Option<Json> {
    Some(match ty {
        PropertyType::String | PropertyType::Bytes => Json::from(""),
        PropertyType::Int32 | PropertyType::Int64 => Json::from(0),
        PropertyType::Number => Json::from(0.0),
        PropertyType::Boolean => Json::from(false),
        PropertyType::List(..) => Json::Array(Vec::new()),
        PropertyType::Map(..) => Json::Object(Map::new()),
        PropertyType::Ref(path) => match catalog.data().shape(path, catalog.data().latest())? {
            Shape::Leaf(Leaf::Time | Leaf::MicroTime) => return None,
            Shape::Leaf(Leaf::Quantity) => Json::from(""),
            Shape::Leaf(Leaf::IntOrString) => Json::from(0),
            Shape::Leaf(Leaf::Json) => Json::Null,
            Shape::Object(shape) => {
                let mut map = Map::new();
                for required in &shape.required {
                    let property = shape.properties.get(required)?;
                    map.insert(required.clone(), default(catalog, &property.ty)?);
                }
                Json::Object(map)
            }
        },
    })
}
