/**
 * Ids the examples of the declarations use: well-formed, as the API issues them, naming nothing.
 * (An example is documentation; against a real workspace these ids answer 404.)
 */
export const EXAMPLE = {
  mission: 'msn_01kbz4n6w2d8q5r7t9v3x1y0za',
  decision: 'dec_01kbz6p2m4c7f9h1k3n5q8s0ub',
  abTest: 'abt_01kbz8r5t7v9x2z4b6d8f0h2jc',
  emailSend: 'snd_01kbza3c5e7g9j1l3n5p7r9t1d',
  campaign: 'cmp_01kbzc6f8h0k2m4p6r8t0w2y4e',
  list: 'lst_01kbze9j1l3n5q7s9u1w3y5a7f',
  segment: 'seg_01kbzg2m4p6r8t0v2x4z6b8d0g',
  agent: 'agt_01kbzj5q7s9u1w3y5a7c9e1g3h',
  authorization: 'auth_01kbzm8t0w2y4a6c8e0g2j4l6j',
} as const
