// Package price holds the one grammar of a deployment's price: an amount,
// a three-letter currency and a period ("0.42 USD/h", "694 EUR/month"),
// read by Parse wherever a price is given (a targets or plan file,
// --price, compare --price), and converted per hour, per month (730
// hours) and to the cents per hour a result stores.
package price
