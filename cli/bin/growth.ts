#!/usr/bin/env bun
import { main } from '../src/index.ts'

await main(process.argv)
