"""Writes seeds/*.csv of the dbt_shop test project (fixed random seed; run from this folder)."""

import csv
import datetime
import random

rnd = random.Random(31)
NAMES = ["Ada Park", "Ben Ortiz", "Cleo Ward", "Dev Shah", "Eli Moss", "Fay Lund", "Gus Hale", "Hana Roy",
         "Ida Lowe", "Jon Pike", "Kim Vale", "Leo Ruiz"]
PRODUCTS = [(1, 6.0, 1, False), (2, 3.5, 0, True), (3, 11.0, 1, False), (4, 4.25, 0, True), (5, 8.0, 1, False)]
orders: list[dict] = []
items: list[dict] = []
returns: list[dict] = []
first: dict[int, datetime.datetime] = {}
start = datetime.datetime(2024, 1, 3, 9, 0)
item_id = 1
for oid in range(1, 41):
    cid = rnd.randint(1, len(NAMES))
    at = start + datetime.timedelta(days=rnd.randint(0, 75), hours=rnd.randint(0, 10), minutes=rnd.randint(0, 59))
    subtotal, food = 0.0, False
    for line in range(1, rnd.randint(1, 4) + 1):
        pid, price, is_food, is_drink = rnd.choice(PRODUCTS)
        items.append({"order_item_id": item_id, "order_id": oid, "line_number": line, "product_id": pid,
                      "ordered_at": at.isoformat(sep=" "), "product_price": price, "is_food_item": is_food,
                      "is_drink_item": str(is_drink).lower()})
        if rnd.random() < 0.12:
            returns.append({"return_id": len(returns) + 1, "order_id": oid, "line_number": line,
                            "returned_at": (at + datetime.timedelta(days=3)).isoformat(sep=" "),
                            "refund_amount": price})
        subtotal += price
        food = food or bool(is_food)
        item_id += 1
    tax = round(subtotal * 0.06, 2)
    orders.append({"order_id": oid, "customer_id": cid, "location_id": rnd.randint(1, 3),
                   "ordered_at": at.isoformat(sep=" "), "order_total": round(subtotal + tax, 2), "tax_paid": tax,
                   "order_cost": round(subtotal * 0.4, 2), "is_food_order": str(food).lower()})
    first[cid] = min(first.get(cid, at), at)
counts: dict[int, int] = {}
for order in orders:
    counts[order["customer_id"]] = counts.get(order["customer_id"], 0) + 1
customers = [{"customer_id": c, "customer_name": NAMES[c - 1],
              "customer_type": "returning" if counts.get(c, 0) > 1 else "new",
              "first_ordered_at": first[c].isoformat(sep=" ") if c in first else ""}
             for c in range(1, len(NAMES) + 1)]
for name, rows in (("orders", orders), ("order_items", items), ("customers", customers), ("item_returns", returns)):
    with open(f"seeds/{name}.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(name, len(rows))
