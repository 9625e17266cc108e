// Package gyges implements Gygès, basic and advanced rule.
package gyges
