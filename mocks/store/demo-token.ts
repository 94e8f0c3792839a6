/**
 * The demo account's token: a public test value, like a payment provider's test card. A module of its own so that the
 * CLI can send it to the served sandbox without loading the seed (and the contract's schemas with it).
 */
export const DEMO_TOKEN = 'topup_test_demo_4eC39HqLyjWDarjtT1zdp7dc';
