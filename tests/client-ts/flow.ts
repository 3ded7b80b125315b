// The main integrator flows through a TypeScript client generated from
// /openapi.json by @hey-api/openapi-ts: every call goes through the typed
// SDK, every request is checked by the generated zod schema before it is
// sent and every answer after it arrives (a field the spec calls required
// but the service leaves out, or `null` where the spec forbids it, fails
// here), and any error answer throws.
//
// Run by tests/client-ts/run. Environment: LOYALTY_URL, LOYALTY_KEY,
// LOYALTY_SECRET.

import { randomUUID } from 'node:crypto';

import { client } from './client/client.gen.js';
import * as api from './client/sdk.gen.js';

function environment(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

function check(condition: boolean, what: string, seen?: unknown): void {
  if (!condition) throw new Error(`${what}: ${JSON.stringify(seen)}`);
}

/** The answer's body: every call throws on an error answer, so one is there. */
function ok<T>(answer: { data?: T }): T {
  if (answer.data === undefined) throw new Error('an answer without a body');
  return answer.data;
}

/** A fresh Idempotency-Key for a write. */
const once = () => ({ 'Idempotency-Key': randomUUID() });

async function main(): Promise<void> {
  client.setConfig({
    baseUrl: environment('LOYALTY_URL'),
    throwOnError: true,
    headers: {
      'X-Api-Key': environment('LOYALTY_KEY'),
      'X-Api-Secret': environment('LOYALTY_SECRET'),
      'X-Api-Version': '1',
    },
  });

  const checked = ok(await api.getCheck());
  check(checked.company === 'demo', 'the key is the demo Company', checked);

  // A Customer.
  const email = `ts-${randomUUID().slice(0, 8)}@example.com`;
  const customer = ok(await api.postCustomers({
    body: { email, first_name: 'Ana', consents: { terms: true } },
    headers: once(),
  }));
  const read = ok(await api.getCustomersByValue({ path: { value: customer.id } }));
  check(read.email === email && read.phone == null, 'the Customer reads back', read);

  // Points by hand, so the Reward below can be redeemed.
  await api.postScoresTrigger({
    body: { customer_id: customer.id, points: 1000, description: 'client flow' },
    headers: once(),
  });

  // A cart with effects.
  const code = `TS-${randomUUID().slice(0, 10)}`;
  const answer = ok(await api.postCartsRealtime({
    body: {
      code,
      customer_id: customer.id,
      date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      lines: [{ product_code: 'COFFEE', quantity: 2, price: 2.5 }],
    },
    query: { explain: true },
    headers: once(),
  }));
  check(answer.cart.id === code, 'the cart is recorded under its code', answer.cart);
  check(answer.effects.length > 0, "the demo Company's points campaign applies", answer);
  const stored = ok(await api.getCartsById({ path: { id: code } }));
  check(stored.total === 5, 'the cart reads back', stored);

  // Points.
  const balances = ok(await api.getCustomersByValuePoints({ path: { value: customer.id } }));
  check(balances.points === 1000 + answer.cart.points_earned, 'the balance', balances);
  const redeemed = ok(await api.postPointsRedeem({
    body: { customer_id: customer.id, points: 1 },
    headers: once(),
  }));
  check(redeemed.balance === balances.points - 1, 'a redemption of points', redeemed);
  const transactions = ok(await api.getPointsTransactions({
    query: { customer_id: customer.id },
  }));
  check(transactions.transactions.length === 3, 'the ledger', transactions);

  // Vouchers: a Coupon, a Voucher of it for the Customer, redeemed and
  // rolled back.
  const coupon = ok(await api.postCoupons({
    body: { name: 'Client flow: five off', discount: { amount: 5 }, code_pattern: 'TS-#####' },
    headers: once(),
  }));
  const voucher = ok(await api.postDiscountsTrigger({
    body: { customer_id: customer.id, coupon_id: coupon.id },
    headers: once(),
  }));
  const looked = ok(await api.getVouchersByCode({
    path: { code: voucher.code },
    query: { customer_id: customer.id },
  }));
  check(looked.code === voucher.code && looked.state === 'active', 'the Voucher', looked);
  const used = ok(await api.postVouchersRedeem({
    body: { customer_id: customer.id, codes: [voucher.code] },
    headers: once(),
  }));
  const redemption = used.redemptions[0];
  check(redemption !== undefined, 'the Voucher is redeemed', used);
  const undone = ok(await api.postVouchersRollback({
    body: { redemption_ids: [redemption!.redemption_id] },
    headers: once(),
  }));
  check(undone.redemptions.length === 1, 'the redemption is rolled back', undone);

  // A Reward redeemed and rolled back.
  const reward = ok(await api.postRewardsByIdRedeem({
    path: { id: 402 },
    body: { customer_id: customer.id },
    headers: once(),
  }));
  check(reward.state === 'redeemed', 'the Reward is redeemed', reward);
  const returned = ok(await api.postRewardsTransactionsByIdRollback({
    path: { id: reward.id },
    body: { reason: 'client flow' },
    headers: once(),
  }));
  check(returned.state === 'rolled_back', 'the Reward is rolled back', returned);

  // An Instant Win look-up, a Challenge and a game play.
  const wins = ok(await api.getInstantWins({ query: { customer_id: customer.id } }));
  check(Array.isArray(wins.instant_wins), 'the Instant Wins', wins);
  const enrolled = ok(await api.postChallengesByIdEnroll({
    path: { id: 701 },
    body: { customer_id: customer.id },
    headers: once(),
  }));
  check(enrolled.enrolled && enrolled.target === 3, 'the Challenge enrolment', enrolled);
  const standing = ok(await api.getCustomersByValueChallenges({
    path: { value: customer.id },
  }));
  check(standing.challenges.length > 0, "the Customer's Challenges", standing);
  const played = ok(await api.postGamesByIdPlay({
    path: { id: 501 },
    body: { customer_id: customer.id },
    headers: once(),
  }));
  check(played.game_id === 501, 'the game is played', played);

  // An error answer is an error the client can read.
  const refused = await api.postPointsRedeem({
    body: { customer_id: customer.id, points: 1_000_000 },
    headers: once(),
    throwOnError: false,
  });
  check(refused.response.status === 422, 'too many points are refused', refused.error);

  console.log('generated TypeScript client: every flow validated');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
