/** Eurozone members (Bulgaria from 2026-01-01). Billing is in EUR there, USD elsewhere, same numbers. */
const eurozone = new Set(['AT', 'BE', 'BG', 'CY', 'DE', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PT', 'SI', 'SK']);

export function billingCurrency(country: string): 'EUR' | 'USD' {
  return eurozone.has(country.toUpperCase()) ? 'EUR' : 'USD';
}
