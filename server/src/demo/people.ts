import type { Decider } from '../core/decider.ts'
import { type Rng, digits } from './random.ts'

/**
 * The reference data of "Northwind Coffee Roasters", a specialty roaster selling online in the US,
 * Europe and Japan: its team, the countries its customers live in (names, mail domains, phone
 * formats), the companies that buy wholesale, its products and prices, and the coffees it roasts.
 */

/**
 * The team: the people who decide, approve and write in the demo's history. There is no console
 * yet, so they decided as operators do, with the CLI: their decisions record their login.
 */
export const PEOPLE = [
  { name: 'Maya Chen', title: 'Head of Growth', login: 'mchen' },
  { name: 'Daniel Okafor', title: 'Paid Media Lead', login: 'dokafor' },
  { name: 'Sofia Lindqvist', title: 'Lifecycle Marketing', login: 'slindqvist' },
  { name: 'Kenji Watanabe', title: 'Japan Market Lead', login: 'kwatanabe' },
]
export const authorName = (p: (typeof PEOPLE)[number]) => `${p.name} (${p.title})`

/** A decision one of the team made with the CLI, as it is recorded: their login, and the --by note if any. */
export function operatorDecision(name: string, note?: string): Decider {
  const person = PEOPLE.find((p) => p.name === name)
  if (!person) throw new Error(`demo: ${name} is not one of the team`)
  return note ? { kind: 'operator', name: person.login, note } : { kind: 'operator', name: person.login }
}

type Country = 'us' | 'de' | 'fr' | 'nl' | 'es' | 'it' | 'se' | 'jp'
export const COUNTRIES: Record<Country, { weight: number; first: string[]; last: string[]; domains: string[]; phone: (r: Rng) => string }> = {
  us: {
    weight: 55,
    first: ['Olivia', 'Liam', 'Emma', 'Noah', 'Ava', 'Ethan', 'Sophia', 'Mason', 'Harper', 'Elijah', 'Charlotte', 'Daniel', 'Grace', 'Samuel', 'Chloe', 'Henry', 'Zoe', 'Jack', 'Nora', 'Caleb', 'Priya', 'Arjun', 'Wei', 'Jasmine', 'Marcus', 'Aaliyah', 'Diego', 'Valeria', 'Tyler', 'Megan', 'Brandon', 'Lauren', 'Kevin', 'Rachel', 'Andre', 'Keisha', 'Connor', 'Hailey', 'Nathan', 'Brooke'],
    last: ['Bennett', 'Carter', 'Nguyen', 'Patel', 'Rodriguez', 'Kim', 'Johnson', 'Brooks', 'Sullivan', 'Hayes', 'Morales', 'Foster', 'Reyes', 'Park', 'Coleman', 'Walsh', 'Greene', 'Howard', 'Ramirez', 'Chen', 'Okafor', 'Washington', 'Jenkins', 'Price', 'Murphy', 'Delgado', 'Fitzgerald', 'Tran', 'Larson', 'Whitaker'],
    domains: ['gmail.com', 'gmail.com', 'gmail.com', 'yahoo.com', 'outlook.com', 'icloud.com', 'hey.com', 'proton.me', 'comcast.net'],
    phone: (r) => `+1 ${r.pick(['503', '206', '415', '512', '617', '303', '718'])}-555-01${digits(r, 2)}`,
  },
  de: {
    weight: 8,
    first: ['Lukas', 'Lena', 'Jonas', 'Marie', 'Felix', 'Hannah', 'Paul', 'Laura', 'Maximilian', 'Clara', 'Tobias', 'Johanna'],
    last: ['Weber', 'Fischer', 'Schneider', 'Becker', 'Hoffmann', 'Wagner', 'Schulz', 'Keller', 'Richter', 'Braun'],
    domains: ['gmx.de', 'web.de', 'posteo.de', 'gmail.com', 't-online.de'],
    phone: (r) => `+49 15${r.int(1, 9)} ${digits(r, 4)} ${digits(r, 4)}`,
  },
  fr: {
    weight: 6,
    first: ['Camille', 'Louis', 'Élise', 'Hugo', 'Manon', 'Théo', 'Chloé', 'Antoine', 'Léa', 'Julien'],
    last: ['Laurent', 'Moreau', 'Dubois', 'Lefèvre', 'Girard', 'Bonnet', 'Fontaine', 'Rousseau', 'Mercier', 'Blanc'],
    domains: ['orange.fr', 'free.fr', 'gmail.com', 'laposte.net'],
    phone: (r) => `+33 6 ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`,
  },
  nl: {
    weight: 4,
    first: ['Daan', 'Sanne', 'Bram', 'Fleur', 'Lars', 'Noor', 'Sem', 'Eva'],
    last: ['de Vries', 'Jansen', 'Bakker', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder'],
    domains: ['ziggo.nl', 'gmail.com', 'kpnmail.nl'],
    phone: (r) => `+31 6 ${digits(r, 4)} ${digits(r, 4)}`,
  },
  es: {
    weight: 4,
    first: ['Lucía', 'Pablo', 'Martina', 'Javier', 'Carmen', 'Álvaro', 'Elena', 'Sergio'],
    last: ['García', 'Fernández', 'López', 'Martínez', 'Sánchez', 'Romero', 'Navarro', 'Torres'],
    domains: ['gmail.com', 'hotmail.es', 'telefonica.net'],
    phone: (r) => `+34 6${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
  },
  it: {
    weight: 4,
    first: ['Giulia', 'Matteo', 'Francesca', 'Lorenzo', 'Chiara', 'Alessandro', 'Sara', 'Davide'],
    last: ['Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci'],
    domains: ['libero.it', 'gmail.com', 'virgilio.it'],
    phone: (r) => `+39 3${digits(r, 2)} ${digits(r, 3)} ${digits(r, 4)}`,
  },
  se: {
    weight: 3,
    first: ['Astrid', 'Erik', 'Freya', 'Oskar', 'Linnea', 'Axel', 'Maja', 'Nils'],
    last: ['Lindqvist', 'Andersson', 'Johansson', 'Berg', 'Nilsson', 'Holm', 'Sjöberg', 'Ek'],
    domains: ['gmail.com', 'telia.com', 'outlook.com'],
    phone: (r) => `+46 70 ${digits(r, 3)} ${digits(r, 2)} ${digits(r, 2)}`,
  },
  jp: {
    weight: 16,
    first: ['Haruto', 'Yui', 'Ren', 'Aoi', 'Sota', 'Hina', 'Yuto', 'Mio', 'Kenta', 'Sakura', 'Riku', 'Yuna', 'Daiki', 'Emi', 'Takumi', 'Nanami'],
    last: ['Sato', 'Suzuki', 'Takahashi', 'Tanaka', 'Watanabe', 'Ito', 'Yamamoto', 'Nakamura', 'Kobayashi', 'Kato', 'Yoshida', 'Yamada', 'Matsumoto', 'Inoue'],
    domains: ['gmail.com', 'yahoo.co.jp', 'icloud.com', 'docomo.ne.jp'],
    phone: (r) => `+81 90-${digits(r, 4)}-${digits(r, 4)}`,
  },
}

/** Where a customer buys: the US store, the EU store or the Japan store, each in its own currency. */
export type Region = 'us' | 'eu' | 'jp'
export const COMPANIES: Record<Region, string[]> = {
  us: ['Bluebird Café', 'Harbor Office Supply', 'Lantern Bakery', 'Copper Kettle Diner', 'Greenline Coworking', 'Maple & Oak Catering', 'Tidewater Books'],
  eu: ['Fika Haus Berlin', 'Café Lumière', 'Panadería Sol', 'Studio Nord', 'Bar Centrale'],
  jp: ['Kissa Hoshino', 'Komorebi Books', 'Sakura Coworking'],
}
export const region = (c: Country): Region => (c === 'us' ? 'us' : c === 'jp' ? 'jp' : 'eu')
export const CURRENCY = { us: 'USD', eu: 'EUR', jp: 'JPY' } as const

export const PRODUCTS: { name: string; price: Record<string, number> }[] = [
  { name: 'Ethiopia Guji Natural 340g', price: { USD: 2200, EUR: 2100, JPY: 3200 } },
  { name: 'House Espresso Blend 1kg', price: { USD: 4800, EUR: 4500, JPY: 6800 } },
  { name: 'Colombia Huila Decaf 340g', price: { USD: 1900, EUR: 1800, JPY: 2800 } },
  { name: 'Drip Bag Sampler (10)', price: { USD: 1600, EUR: 1500, JPY: 2400 } },
  { name: 'Kenya Kiambu AA 250g', price: { USD: 2400, EUR: 2300, JPY: 3600 } },
  { name: 'Guatemala Huehuetenango 340g', price: { USD: 2000, EUR: 1900, JPY: 3000 } },
  { name: 'Hario V60 Starter Kit', price: { USD: 3900, EUR: 3700, JPY: 4800 } },
]
export const SHIPPING: Record<string, number> = { USD: 595, EUR: 495, JPY: 600 }
export const FREE_SHIPPING: Record<string, number> = { USD: 4500, EUR: 4000, JPY: 6000 }
export const ORIGINS = ['Ethiopia Guji', 'Kenya Kiambu AA', 'Guatemala Huehuetenango', 'Colombia Huila', 'Rwanda Nyamasheke', 'Sumatra Aceh']

export type Shopper = { country: Country; first: string; last: string; email: string }

const plain = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z]/g, '').toLowerCase()

/**
 * New people, each with an address not yet in `taken` (which holds the do-not-contact addresses
 * too), from the countries by weight: first the contacts, later the buyers who never became one.
 */
export function personMaker(r: Rng, taken: Set<string>): () => Shopper {
  const countryWeights = Object.entries(COUNTRIES).map(([c, v]) => [c as Country, v.weight] as const)
  return () => {
    for (;;) {
      const country = r.weighted(countryWeights)
      const pool = COUNTRIES[country]
      const first = r.pick(pool.first)
      const last = r.pick(pool.last)
      const f = plain(first)
      const l = plain(last)
      const local = r.weighted([[`${f}.${l}`, 5], [`${f}${l}`, 2], [`${f[0]}${l}`, 2], [`${f}_${l}`, 1], [`${f}.${l}${r.int(1, 99)}`, 2]] as const)
      let email = `${local}@${r.pick(pool.domains)}`
      if (taken.has(email)) continue
      taken.add(email)
      if (r.chance(0.04)) email = `${local[0].toUpperCase()}${local.slice(1)}`.replace(/\.(\w)/, (_, c: string) => '.' + c.toUpperCase()) + email.slice(email.indexOf('@'))
      return { country, first, last, email }
    }
  }
}
