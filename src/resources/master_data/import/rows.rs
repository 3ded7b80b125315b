//! The rows of an import file, each as the JSON body its record's POST
//! takes, with the line it came from: JSON lines as they are, CSV through
//! its header (`code,name,price,aliases,features,...`).

use serde_json::{Map, Value, json};

/// Where and why a file cannot be imported.
pub type LineErrors = Vec<(usize, String)>;

/// The file's formats.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, poem_openapi::Enum,
)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum ImportFormat {
    /// Comma-separated values with a header row.
    Csv,
    /// One JSON object per line, as the POST operation takes it.
    JsonLines,
}

/// The rows of `text`, each with its line number (from 1); every problem
/// with its line when any.
pub fn rows(format: ImportFormat, text: &str) -> Result<Vec<(usize, Value)>, LineErrors> {
    match format {
        ImportFormat::JsonLines => json_lines(text),
        ImportFormat::Csv => csv_rows(text),
    }
}

fn json_lines(text: &str) -> Result<Vec<(usize, Value)>, LineErrors> {
    let mut rows = Vec::new();
    let mut errors = LineErrors::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(value) if value.is_object() => rows.push((index + 1, value)),
            Ok(_) => errors.push((index + 1, "not a JSON object".into())),
            Err(error) => errors.push((index + 1, format!("not JSON: {error}"))),
        }
    }
    if errors.is_empty() {
        Ok(rows)
    } else {
        Err(errors)
    }
}

/// Where a CSV column goes in the JSON body.
#[derive(Debug, Clone)]
enum Column {
    /// A text field.
    Text(String),
    /// A number field (`price`).
    Number(String),
    /// `true`/`false` (also `yes`/`no`, `1`/`0`).
    Flag(String),
    /// Values separated by `|` (`aliases`).
    List(String),
    /// `taxonomy:feature|taxonomy:feature` (`features`).
    Features,
    /// `latitude` or `longitude` of `coordinates`.
    Coordinate(String),
    /// `object.field` (`names.es`, `attributes.margin`, `address.city`).
    Nested(String, String),
}

/// The column headed `name`.
fn column(name: &str) -> Option<Column> {
    let name = name.trim();
    Some(match name {
        "code" | "name" | "country" | "time_zone" => Column::Text(name.into()),
        "price" | "amount" => Column::Number(name.into()),
        "discountable" => Column::Flag(name.into()),
        "aliases" => Column::List(name.into()),
        "features" => Column::Features,
        "latitude" | "longitude" => Column::Coordinate(name.into()),
        _ => {
            let (object, field) = name.split_once('.')?;
            if !["names", "attributes", "address"].contains(&object) || field.is_empty() {
                return None;
            }
            Column::Nested(object.into(), field.into())
        }
    })
}

fn csv_rows(text: &str) -> Result<Vec<(usize, Value)>, LineErrors> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|error| vec![(1, format!("cannot read the header: {error}"))])?
        .clone();
    let mut columns = Vec::new();
    for name in &headers {
        match column(name) {
            Some(column) => columns.push(column),
            None => {
                return Err(vec![(
                    1,
                    format!(
                        "unknown column `{name}` (known: code, name, price, aliases, features, discountable, country, time_zone, latitude, longitude, names.LANG, attributes.KEY, address.FIELD)"
                    ),
                )]);
            }
        }
    }
    let mut rows = Vec::new();
    let mut errors = LineErrors::new();
    for record in reader.records() {
        match record {
            Ok(record) => {
                let line = record.position().map_or(0, |p| p.line() as usize);
                match csv_row(&columns, &record) {
                    Ok(row) => rows.push((line, row)),
                    Err(error) => errors.push((line, error)),
                }
            }
            Err(error) => {
                let line = error.position().map_or(0, |p| p.line() as usize);
                errors.push((line, error.to_string()));
            }
        }
    }
    if errors.is_empty() {
        Ok(rows)
    } else {
        Err(errors)
    }
}

/// One CSV record as a JSON body.
fn csv_row(columns: &[Column], record: &csv::StringRecord) -> Result<Value, String> {
    let mut row = Map::new();
    for (column, cell) in columns.iter().zip(record.iter()) {
        if cell.is_empty() {
            continue;
        }
        match column {
            Column::Text(field) => {
                row.insert(field.clone(), json!(cell));
            }
            Column::Number(field) => {
                let number: serde_json::Number = cell
                    .parse()
                    .map_err(|_| format!("`{field}` `{cell}` is not a number"))?;
                row.insert(field.clone(), Value::Number(number));
            }
            Column::Flag(field) => {
                let flag = match cell.to_ascii_lowercase().as_str() {
                    "true" | "yes" | "1" => true,
                    "false" | "no" | "0" => false,
                    _ => return Err(format!("`{field}` `{cell}` is not true or false")),
                };
                row.insert(field.clone(), json!(flag));
            }
            Column::List(field) => {
                let items: Vec<&str> = cell
                    .split('|')
                    .map(str::trim)
                    .filter(|i| !i.is_empty())
                    .collect();
                row.insert(field.clone(), json!(items));
            }
            Column::Features => {
                let mut features: Map<String, Value> = Map::new();
                for pair in cell.split('|').map(str::trim).filter(|p| !p.is_empty()) {
                    let (taxonomy, feature) = pair
                        .split_once(':')
                        .ok_or_else(|| format!("feature `{pair}` is not TAXONOMY:FEATURE"))?;
                    let slugs = features.entry(taxonomy.trim()).or_insert_with(|| json!([]));
                    if let Some(slugs) = slugs.as_array_mut() {
                        slugs.push(json!(feature.trim()));
                    }
                }
                row.insert("features".into(), Value::Object(features));
            }
            Column::Coordinate(field) => {
                let number: serde_json::Number = cell
                    .parse()
                    .map_err(|_| format!("`{field}` `{cell}` is not a number"))?;
                let coordinates = row.entry("coordinates").or_insert_with(|| json!({}));
                coordinates[field] = Value::Number(number);
            }
            Column::Nested(object, field) => {
                let nested = row.entry(object.clone()).or_insert_with(|| json!({}));
                nested[field] = json!(cell);
            }
        }
    }
    Ok(Value::Object(row))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_columns_become_the_post_body() {
        let text = "code,name,price,aliases,features,discountable,names.es\n\
                    MILK,Milk,1.25,8410000000017|SKU-9,department:dairy|brand:acme,yes,Leche\n\
                    \"GIFT,CARD\",\"Gift \"\"card\"\"\",,,,no,\n";
        let rows = rows(ImportFormat::Csv, text).unwrap();
        assert_eq!(rows[0].0, 2);
        assert_eq!(
            rows[0].1,
            json!({"code": "MILK", "name": "Milk", "price": 1.25, "aliases": ["8410000000017", "SKU-9"],
                   "features": {"department": ["dairy"], "brand": ["acme"]}, "discountable": true,
                   "names": {"es": "Leche"}})
        );
        assert_eq!(
            rows[1],
            (
                3,
                json!({"code": "GIFT,CARD", "name": "Gift \"card\"", "discountable": false})
            )
        );
    }

    #[test]
    fn every_bad_line_is_named() {
        let text = "code,name,price\nA,Apple,1.5\nB,Bread,cheap\nC,Cake\n";
        let errors = rows(ImportFormat::Csv, text).unwrap_err();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(errors[0].0, 3);
        assert!(errors[0].1.contains("cheap"), "{errors:?}");
        assert_eq!(errors[1].0, 4);
        let errors = rows(ImportFormat::Csv, "code,colour\nA,red\n").unwrap_err();
        assert_eq!(errors[0].0, 1);
        assert!(errors[0].1.contains("colour"), "{errors:?}");
        let errors = rows(ImportFormat::JsonLines, "{\"code\": \"A\"}\n\n[1]\n{bad\n").unwrap_err();
        let lines: Vec<usize> = errors.iter().map(|(line, _)| *line).collect();
        assert_eq!(lines, vec![3, 4]);
    }
}
