// Writes a CSV of made-up contacts: node generate.js [file] [rows] (default contacts.csv, 10,000 rows).
// The same arguments always write the same file, so importing it again resumes rather than starts over.
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'

const [file = 'contacts.csv', rows = '10000'] = process.argv.slice(2)
const firstNames = ['Ana', 'Ben', 'Chloe', 'Dev', 'Emma', 'Felix', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kemi', 'Lars']
const lastNames = ['Garcia', 'Okafor', 'Lefevre', 'Patel', 'Schmidt', 'Tanaka', 'Rossi', 'Nguyen', 'Silva', 'Kowalski']
const companies = ['Northwind Traders', 'Contoso', 'Fabrikam', 'Smith, Jones & Co', '']
const tags = ['newsletter', 'trial;newsletter', 'customer', '']

// A CSV cell: quoted when it holds a comma, a quote or a line break.
const cell = (value) => (/[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value)

const out = createWriteStream(file)
out.write('email,first_name,last_name,company,tags\n')
for (let i = 0; i < Number(rows); i++) {
  const first = firstNames[i % firstNames.length]
  const last = lastNames[Math.floor(i / firstNames.length) % lastNames.length]
  const company = companies[i % companies.length]
  const email = `${first}.${last}.${i}@example.com`.toLowerCase()
  const line = [email, first, last, company, tags[i % tags.length]].map(cell).join(',') + '\n'
  if (!out.write(line)) await once(out, 'drain')
}
out.end()
await once(out, 'finish')
console.log(`Wrote ${rows} contacts to ${file}`)
