// The Java original's bean: an order with its number and its customer.
export class Order {
  constructor(
    readonly orderNo: string,
    readonly userNo: string,
  ) {}
}
