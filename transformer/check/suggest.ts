// "Did you mean …?": the runtime's helper (it suggests the spelling of configure() options too).
export { closest, didYouMean } from '../../runtime/base/suggest';
