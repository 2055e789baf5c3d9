/** A text field's new value with its line breaks taken out: inner ones become spaces, a final one means Enter. */
export function takeLine(value: string): { text: string; submit: boolean } {
  if (!/[\r\n]/.test(value)) return { text: value, submit: false };
  const submit = /[\r\n]$/.test(value);
  return { text: value.replace(/[\r\n]+$/, "").replace(/\r\n|[\r\n]/g, " "), submit };
}
